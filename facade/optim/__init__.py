"""torch.optim."""
