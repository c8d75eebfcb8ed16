"""The kernel a plugin runs where the op's host code changes a tensor's layout with PyTorch.

Library host code often makes a contiguous copy of a permuted view before its kernel (Liger's
RoPE: `q.transpose(1, 2).contiguous()`), or returns a permuted view of the buffer its kernel
wrote (`return q.transpose(1, 2)`). A plugin runs kernels only, and TensorRT hands it outputs
contiguous in their own shape; so each such copy becomes a launch of `layout_copy`, recorded as
if the host code had launched it, and recovered with the op's own launches (its sizes and
strides as expressions of the op's shapes). The generated project compiles this file as it
compiles the op's kernel files: it imports Triton only.
"""
import triton
import triton.language as tl

# The largest rank copied; a smaller one is padded in front with extents of 1.
RANK = 6
# Elements per program of the launch (its grid); a program copies tiles of ROWS x COLUMNS.
BLOCK = 1024
ROWS = 32
COLUMNS = 32


@triton.jit
def layout_copy(source, destination, numel, size1, size2, size3, size4, size5, stride0, stride1,
                stride2, stride3, stride4, stride5, ROWS: tl.constexpr, COLUMNS: tl.constexpr):
    """destination (contiguous, extents [*, size1, ..., size5]) = source read through its
    strides. The destination is copied in tiles of ROWS rows (a row: the last axis) by COLUMNS
    elements, each program taking every num_programs-th tile: a row's index into the source is
    worked out once per tile row, not per element (the divisions would bound the copy), and
    where the last axis is contiguous in the source the tile's reads are too. An extent of 1
    is compiled in as one (Triton's specialisation), so a lower rank costs no index
    arithmetic."""
    rows = numel // size5
    column_tiles = tl.cdiv(size5, COLUMNS)
    for tile in range(tl.program_id(0), tl.cdiv(rows, ROWS) * column_tiles, tl.num_programs(0)):
        row_tile = tile // column_tiles
        row = row_tile * ROWS + tl.arange(0, ROWS)
        column = (tile - row_tile * column_tiles) * COLUMNS + tl.arange(0, COLUMNS)
        rest = row // size4
        index4 = row - rest * size4
        index3 = rest - (rest // size3) * size3
        rest = rest // size3
        index2 = rest - (rest // size2) * size2
        rest = rest // size2
        index1 = rest - (rest // size1) * size1
        index0 = rest // size1
        start = index0 * stride0 + index1 * stride1 + index2 * stride2 + index3 * stride3 + \
            index4 * stride4
        mask = (row < rows)[:, None] & (column < size5)[None, :]
        value = tl.load(source + (start[:, None] + column[None, :] * stride5), mask=mask)
        tl.store(destination + (row[:, None] * size5 + column[None, :]), value, mask=mask)


def launch_arguments(source, destination):
    """(grid, arguments) of the launch that copies `source` (any view) into `destination` (a
    contiguous tensor of the same shape and dtype), in `layout_copy`'s parameter order."""
    shape, strides = list(source.shape), list(source.stride())
    padding = RANK - len(shape)
    shape, strides = [1] * padding + shape, [0] * padding + strides
    numel = destination.numel()
    arguments = {"source": source, "destination": destination, "numel": numel}
    arguments.update({f"size{axis}": shape[axis] for axis in range(1, RANK)})
    arguments.update({f"stride{axis}": strides[axis] for axis in range(RANK)})
    arguments.update(ROWS=ROWS, COLUMNS=COLUMNS)
    return (triton.cdiv(numel, BLOCK),), arguments
