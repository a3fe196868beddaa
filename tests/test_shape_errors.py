"""Shape and indexing ops refuse bad input with torch's exception type and message."""

import numpy as np
import pytest
import torch

import facade


def x(m):
    return m.arange(6.0).reshape(2, 3) * 1


def i(m, v, dtype="int64"):
    return m.tensor(v, dtype=getattr(m, dtype))


CASES = {
    # indexing
    "int_out_of_range": lambda m: m.arange(3)[5],
    "neg_int_out_of_range": lambda m: x(m)[-3],
    "int_out_of_range_dim1": lambda m: x(m)[0, 5],
    "tensor_out_of_range": lambda m: m.arange(3)[i(m, [5])],
    "tensor_out_of_range_2nd": lambda m: x(m)[i(m, [0]), i(m, [7])],
    "tensor_out_of_range_after_slice": lambda m: m.zeros(5, 6, 7)[:, :, i(m, [-9])],
    "tensor0d_out_of_range": lambda m: x(m)[i(m, 2)],
    "negative_step": lambda m: m.arange(3)[::-1],
    "zero_step": lambda m: m.arange(3)[::0],
    "too_many": lambda m: x(m)[0, 1, 2],
    "too_many_mask": lambda m: m.zeros(2, 3, 4)[m.ones(2, 3, dtype=m.bool), 0, 0],
    "zero_dim": lambda m: m.tensor(1.0)[0],
    "float_index": lambda m: x(m)[1.5],
    "float_tensor_index": lambda m: x(m)[m.tensor([0.0])],
    "int8_tensor_index": lambda m: x(m)[i(m, [0], "int8")],
    "numpy_bool_index": lambda m: x(m)[np.True_],
    "mask_shape": lambda m: x(m)[m.tensor([True, False, True])],
    "mask_shape_dim1": lambda m: m.zeros(2, 3, 4)[:, m.ones(2, dtype=m.bool)],
    "broadcast_indices": lambda m: x(m)[i(m, [0, 1]), i(m, [0, 1, 2])],
    "setitem_out_of_range": lambda m: x(m).__setitem__(i(m, [2]), 1.0),
    "setitem_int_out_of_range": lambda m: x(m).__setitem__(2, 1.0),
    "setitem_value_shape": lambda m: x(m).__setitem__(i(m, [0]), m.ones(2)),
    "setitem_basic_value_shape": lambda m: x(m).__setitem__(0, m.ones(2)),
    "setitem_list": lambda m: x(m).__setitem__(0, [1.0, 2.0, 3.0]),
    # gather / scatter / index_*
    "gather_ndim": lambda m: x(m).gather(0, i(m, [0])),
    "gather_size": lambda m: x(m).gather(0, i(m, [[0, 0, 0, 0]])),
    "gather_bounds": lambda m: x(m).gather(0, i(m, [[2]])),
    "scatter_dtype": lambda m: x(m).scatter(0, i(m, [[0]]), m.ones(1, 1, dtype=m.float64)),
    "scatter_src_dims": lambda m: x(m).scatter(0, i(m, [[0]]), m.tensor(2.0)),
    "scatter_size": lambda m: x(m).scatter(0, i(m, [[0, 0]]), m.zeros(1, 1)),
    "scatter_bounds": lambda m: x(m).scatter(0, i(m, [[2]]), m.zeros(1, 1)),
    "scatter_reduce_arg": lambda m: x(m).scatter(0, i(m, [[0]]), m.zeros(1, 1), reduce="mean"),
    "scatter_add_number": lambda m: x(m).scatter_add(0, i(m, [[0]]), 2.0),
    "scatter_reduce_name": lambda m: x(m).scatter_reduce(0, i(m, [[0]]), m.zeros(1, 1), "foo"),
    "index_select_matrix": lambda m: x(m).index_select(0, i(m, [[0]])),
    "index_select_dtype": lambda m: x(m).index_select(0, m.tensor([0.0])),
    "index_select_bounds": lambda m: x(m).index_select(0, i(m, [2])),
    "index_add_count": lambda m: x(m).index_add(0, i(m, [0]), m.ones(2, 3)),
    "index_add_dtype": lambda m: x(m).index_add(0, i(m, [0]), m.ones(1, 3, dtype=m.float64)),
    "index_add_shape": lambda m: x(m).index_add(0, i(m, [0]), m.ones(1, 2)),
    "index_add_bounds": lambda m: x(m).index_add(0, i(m, [2]), m.ones(1, 3)),
    "index_copy_dtype": lambda m: x(m).index_copy(0, i(m, [0]), m.ones(1, 3, dtype=m.float64)),
    "index_copy_count": lambda m: x(m).index_copy(0, i(m, [0]), m.ones(2, 3)),
    "index_copy_index_dtype": lambda m: x(m).index_copy(0, i(m, [0], "int32"), m.ones(1, 3)),
    "index_fill_value": lambda m: x(m).index_fill(0, i(m, [0]), m.tensor([2.0])),
    "index_fill_index_dtype": lambda m: x(m).index_fill(0, i(m, [0], "int32"), 2.0),
    "index_put_dtype": lambda m: x(m).index_put((i(m, [0]),), m.tensor(5, dtype=m.float64)),
    "index_put_shape": lambda m: x(m).index_put((i(m, [0]),), m.tensor([1.0, 2.0])),
    "index_put_none": lambda m: x(m).index_put((i(m, [0]), None), m.tensor(5.0)),
    "masked_fill_mask_dtype": lambda m: x(m).masked_fill(i(m, [1, 0, 1]), 9.0),
    "masked_fill_value_dims": lambda m: x(m).masked_fill(m.tensor(True), m.tensor([9.0])),
    "masked_select_dtype": lambda m: x(m).masked_select(i(m, [1, 0, 1])),
    "masked_scatter_count": lambda m: x(m).masked_scatter(m.tensor([True, False, True]), m.arange(3.0)),
    "take_bounds": lambda m: x(m).take(i(m, [6])),
    "take_dtype": lambda m: x(m).take(m.tensor([0.0])),
    "take_along_dim_dtype": lambda m: x(m).take_along_dim(i(m, [[0]], "int32"), dim=1),
    "put_count": lambda m: x(m).put(i(m, [0, 5]), m.tensor([1.0, 2.0, 3.0])),
    "put_bounds": lambda m: x(m).put(i(m, [0, 6]), m.tensor([1.0, 2.0])),
    "put_dtype": lambda m: x(m).put(i(m, [0, 5]), i(m, [1, 2])),
    # shape ops
    "view_invalid": lambda m: m.arange(6.0).view(4, 5),
    "view_negative": lambda m: x(m).view(-2, 3),
    "flatten_order": lambda m: x(m).flatten(1, 0),
    "flatten_dim": lambda m: x(m).flatten(2),
    "unflatten_product": lambda m: x(m).unflatten(1, (3, 2)),
    "unflatten_empty": lambda m: x(m).unflatten(1, ()),
    "squeeze_repeated": lambda m: x(m).view(1, 2, 1, 3).squeeze((0, 0)),
    "unsqueeze_range": lambda m: x(m).unsqueeze(3),
    "permute_repeated": lambda m: x(m).permute(0, 0),
    "permute_length": lambda m: x(m).permute(0),
    "t_3d": lambda m: m.zeros(2, 3, 4).t(),
    "movedim_repeated": lambda m: x(m).movedim((0, 1), (1, 1)),
    "movedim_lengths": lambda m: x(m).movedim((0, 1), (1,)),
    "expand_mismatch": lambda m: x(m).expand(3, 4),
    "expand_too_few": lambda m: x(m).expand(2),
    "expand_leading_minus_one": lambda m: x(m).expand(-1, 2, 3),
    "repeat_too_few": lambda m: x(m).repeat(2),
    "repeat_interleave_size": lambda m: x(m).repeat_interleave(i(m, [1, 2])),
    "repeat_interleave_negative": lambda m: x(m).repeat_interleave(i(m, [-1, 2, 1]), dim=1),
    "repeat_interleave_output_size": lambda m: x(m).repeat_interleave(i(m, [1, 2, 1]), dim=1, output_size=5),
    "cat_ndim": lambda m: m.cat([x(m), m.ones(3)]),
    "cat_size": lambda m: m.cat([x(m), m.zeros(3, 3)], dim=1),
    "cat_zero_dim": lambda m: m.cat([m.tensor(1.0), m.tensor(2.0)]),
    "cat_empty_list": lambda m: m.cat([]),
    "stack_size": lambda m: m.stack([x(m), x(m)[:1]]),
    "stack_empty": lambda m: m.stack([]),
    "split_sizes": lambda m: x(m).split([1, 1], 1),
    "split_zero": lambda m: x(m).split(0, 1),
    "split_negative": lambda m: x(m).split(-1, 1),
    "chunk_zero": lambda m: x(m).chunk(0),
    "tensor_split_zero": lambda m: m.zeros(7).tensor_split(0),
    "tensor_split_0d": lambda m: m.tensor(1.0).tensor_split(1),
    "unbind_0d": lambda m: m.tensor(1.0).unbind(),
    "narrow_exceeds": lambda m: x(m).narrow(1, 2, 2),
    "narrow_start": lambda m: x(m).narrow(1, 4, 0),
    "select_range": lambda m: x(m).select(1, 3),
    "select_0d": lambda m: m.tensor(1.0).select(0, 0),
    "unfold_size": lambda m: x(m).unfold(1, 4, 1),
    "unfold_step": lambda m: x(m).unfold(1, 2, 0),
    "flip_repeated": lambda m: x(m).flip(0, 0),
    "fliplr_1d": lambda m: m.zeros(3).fliplr(),
    "flipud_0d": lambda m: m.tensor(1.0).flipud(),
    "roll_align": lambda m: x(m).roll((1, 2), (0,)),
    "roll_0d": lambda m: m.tensor(3.0).roll(1, 0),
    "rot90_same": lambda m: x(m).rot90(1, [0, 0]),
    "rot90_count": lambda m: x(m).rot90(1, [0, 1, 2]),
    "rot90_1d": lambda m: m.zeros(3).rot90(),
    "tril_1d": lambda m: m.zeros(3).tril(),
    "triu_1d": lambda m: m.zeros(3).triu(),
    "diag_3d": lambda m: m.zeros(2, 2, 2).diag(),
    "diagonal_same": lambda m: x(m).diagonal(0, 0, 0),
    "diag_embed_same": lambda m: x(m).diag_embed(0, 0, 0),
    "broadcast_to_mismatch": lambda m: x(m).broadcast_to((3, 3)),
    "broadcast_tensors_mismatch": lambda m: m.broadcast_tensors(x(m), m.zeros(3, 1)),
    "meshgrid_dtype": lambda m: m.meshgrid(i(m, [1, 2]), m.tensor([3.0]), indexing="ij"),
    "meshgrid_ndim": lambda m: m.meshgrid(i(m, [[1]]), i(m, [3, 4]), indexing="ij"),
    "meshgrid_indexing": lambda m: m.meshgrid(i(m, [1, 2]), indexing="foo"),
    "meshgrid_empty": lambda m: m.meshgrid(),
    "view_dtype_size": lambda m: x(m).view(m.float64),
    "view_dtype_0d": lambda m: m.tensor(1.0).view(m.float16),
}


TYPE_ONLY = {"meshgrid_ndim"}  # torch's message prints the offending tensor in its legacy format


@pytest.mark.parametrize("name", list(CASES))
def test_error_matches_torch(name):
    with pytest.raises(Exception) as et:
        CASES[name](torch)
    with pytest.raises(Exception) as ef:
        CASES[name](facade)
    assert type(ef.value) is type(et.value)
    if name in TYPE_ONLY:
        assert str(ef.value).startswith("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got:")
    else:
        assert str(ef.value) == str(et.value).split("\n")[0]
