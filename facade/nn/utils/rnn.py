"""torch.nn.utils.rnn: PackedSequence, pack_padded_sequence, pad_packed_sequence, pad_sequence ..."""

__all__ = []
