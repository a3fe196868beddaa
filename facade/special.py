"""torch.special: its functions are installed from the op table (module="torch.special")."""
