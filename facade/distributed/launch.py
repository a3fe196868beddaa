"""torch.distributed.launch, deprecated in torch for torchrun: `python -m facade.distributed.launch` is
facade.distributed.run plus `--use-env`; without it each worker also gets `--local-rank=<local rank>`."""

from __future__ import annotations

import warnings

from .run import get_args_parser, run

__all__ = ["parse_args", "launch", "main"]

_DEPRECATION = ("The module torch.distributed.launch is deprecated\nand will be removed in future. Use torchrun.\n"
                "Note that --use-env is set by default in torchrun.\nIf your script expects `--local-rank` argument "
                "to be set, please\nchange it to read from `os.environ['LOCAL_RANK']` instead. See \n"
                "https://pytorch.org/docs/stable/distributed.html#launch-utility for \nfurther instructions\n")


def parse_args(args):
    parser = get_args_parser()
    parser.add_argument("--use-env", "--use_env", default=False, action="store_true",
                        help="Pass the local rank in LOCAL_RANK only, not as --local-rank.")
    return parser.parse_args(args)


def launch(args) -> None:
    if args.no_python and not args.use_env:
        raise ValueError("When using the '--no-python' flag, you must also set the '--use-env' flag.")
    run(args)


def main(args=None) -> None:
    warnings.warn(_DEPRECATION, FutureWarning, stacklevel=2)
    launch(parse_args(args))


if __name__ == "__main__":
    main()
