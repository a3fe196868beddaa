"""torch.linalg: its functions are installed from the op table (module="torch.linalg")."""
