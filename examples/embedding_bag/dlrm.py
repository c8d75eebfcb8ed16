"""A DLRM-style model: sparse features through several nn.EmbeddingBag tables (different sizes,
modes, padding and per-sample weights), a dense MLP, and an MLP over the concatenation. The
model whose embedding_bag calls autoplugin's converter takes over (tests/torch/test_dlrm.py).

    from dlrm import DLRM, example_inputs
    model = DLRM(); args = example_inputs(batch=8)
"""
import torch
from torch import nn

# (rows, width, mode, padding_idx, per-sample weights, include_last_offset)
TABLES = [
    (1000, 16, "sum", None, False, False),
    (500, 16, "mean", 0, False, False),
    (200, 16, "max", None, False, True),
    (300, 16, "sum", 7, True, False),
]
DENSE_FEATURES = 13


class DLRM(nn.Module):
    def __init__(self, tables=TABLES, dense_features=DENSE_FEATURES, width=16):
        super().__init__()
        self.tables = tables
        self.bags = nn.ModuleList(
            nn.EmbeddingBag(rows, dim, mode=mode, padding_idx=padding,
                            include_last_offset=last_offset)
            for rows, dim, mode, padding, _, last_offset in tables)
        self.bottom = nn.Sequential(nn.Linear(dense_features, 32), nn.ReLU(),
                                    nn.Linear(32, width), nn.ReLU())
        self.top = nn.Sequential(nn.Linear(width * (len(tables) + 1), 64), nn.ReLU(),
                                 nn.Linear(64, 1))

    def forward(self, dense, indices, offsets, weights):
        """indices, offsets: one per table; weights: the per-sample weights of the tables that
        take them, in order."""
        pooled = [self.bottom(dense)]
        given = iter(weights)
        for bag, table, idx, off in zip(self.bags, self.tables, indices, offsets):
            pooled.append(bag(idx, off, per_sample_weights=next(given) if table[4] else None))
        return self.top(torch.cat(pooled, dim=1))


def example_inputs(batch=8, per_bag=5, tables=TABLES, index_dtype=torch.int64, device="cpu",
                   seed=0):
    """(dense, indices, offsets, weights) for `batch` samples of about `per_bag` indices per
    table, with an empty bag in each table."""
    generator = torch.Generator().manual_seed(seed)
    dense = torch.randn(batch, DENSE_FEATURES, generator=generator)
    indices, offsets, weights = [], [], []
    for rows, _, _, padding, weighted, last_offset in tables:
        sizes = torch.randint(1, 2 * per_bag, (batch,), generator=generator)
        sizes[batch // 2] = 0  # an empty bag
        idx = torch.randint(0, rows, (int(sizes.sum()),), generator=generator)
        if padding is not None:
            idx[::3] = padding  # some indices are padding
        starts = torch.cumsum(sizes, 0) - sizes
        off = torch.cat([starts, sizes.sum().reshape(1)]) if last_offset else starts
        indices.append(idx.to(index_dtype).to(device))
        offsets.append(off.to(index_dtype).to(device))
        if weighted:
            weights.append(torch.rand(idx.numel(), generator=generator).to(device))
    return dense.to(device), indices, offsets, weights
