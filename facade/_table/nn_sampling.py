"""Table rows of torch.nn.functional: sampling."""

MODULE = "torch.nn.functional"  # where FUNCTIONS (compositions of rows) are installed
OPS = []
FUNCTIONS = {}
