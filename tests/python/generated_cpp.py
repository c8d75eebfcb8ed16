"""What the from-torch tests check in every generated C++ file: a parameter the generator left
unnamed (`double /*eps*/`, it found nothing that reads it) must not be read in its function's
body, or the project would not compile. Comments and string literals are not code."""
import re

# `name(` ... `) {` at the start of a line: a function's signature (wrapped over lines or not)
_SIGNATURE = re.compile(r"^[\w:<>, ]+?\b(\w+)\(([^()]*(?:\([^()]*\)[^()]*)*)\) \{$",
                        re.MULTILINE)
_UNNAMED = re.compile(r"/\*(\w+)\*/")
_COMMENTS_AND_STRINGS = re.compile(r'//[^\n]*|"(?:\\.|[^"\\])*"')


def unnamed_but_read(cpp):
    """(function, parameter) for each parameter a generated function leaves unnamed but reads."""
    found = []
    for signature in _SIGNATURE.finditer(cpp):
        end = cpp.find("\n}\n", signature.end())
        body = _COMMENTS_AND_STRINGS.sub("", cpp[signature.end():end])
        for name in _UNNAMED.findall(signature.group(2)):
            if re.search(rf"(?<![\w.]){name}\b", body):
                found.append((signature.group(1), name))
    return found


def unnamed_parameters(cpp):
    """Every parameter the generated functions leave unnamed."""
    return [name for signature in _SIGNATURE.finditer(cpp)
            for name in _UNNAMED.findall(signature.group(2))]
