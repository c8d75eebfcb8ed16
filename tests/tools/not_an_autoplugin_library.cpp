// A shared library not built with autoplugin (it exports no autoplugin_library_v1_ops): what
// `autoplugin describe` and `list` refuse, pointing to `autoplugin inspect`.
extern "C" int not_an_autoplugin_library() { return 0; }
