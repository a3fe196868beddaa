"""torch.nn.functional: the op table installs its rows here (`Op(..., module="torch.nn.functional")`)
and each nn family's FUNCTIONS; the math of every one lives in `functional.nn`."""
