"""torch.linalg: its functions are installed from the op table (module="torch.linalg")."""


class LinAlgError(RuntimeError):
    """A linear algebra function failed on its input's values (a singular matrix, one that is
    not positive-definite), as torch.linalg.LinAlgError."""


LinAlgError.__module__ = "torch.linalg"
