"""The device a torch adapter builds its operands on: `--device DEVICE` on
its command line, which backends/process/process_backend.cc passes for a
backend name with a device suffix (`torch-python-current@cuda:1` runs
`torch_adapter.py --device cuda:1`). Without the option the adapter is the
plain backend, on the CPU, and says nothing about a device.

    DEVICE = parse_device(sys.argv[1:])   # None, or a torch.device that exists here
    describe_device(DEVICE)               # " on cuda:0 (NVIDIA H100 80GB HBM3, CUDA 13.0, driver 580.95.05)"

A device this torch cannot use raises DeviceUnavailable with the reason
(the adapter answers the handshake "unavailable" with it): a torch built
without CUDA, no GPU visible, an index past the device count, or a device
type this adapter does not know.
"""
import re

import torch

KNOWN_TYPES = ("cpu", "cuda")

# `--device fakecuda`: a test device (tests/device_assert_check.py) that runs
# on the CPU but answers as a CUDA device whose kernels check index values
# with a device-side assert: where the CPU kernel refuses an index value out
# of bounds, the emulated kernel prints PyTorch's CUDA assert text to stderr
# and then, as SCATTERPROOF_FAKECUDA_MODE says,
#   raise (default)  raises "CUDA error: device-side assert triggered", and
#                    refuses every later call with it, as a dead CUDA
#                    context does (the harness must rebuild the process);
#   exit             ends the process at once (exit status 134, as an
#                    abort), as a framework that aborts on the assert does.
# SCATTERPROOF_FAKECUDA_DELAY_MS=D makes every call take D ms more (a slow
# kernel: the test paces its cases by time, not by the machine's speed).
FAKE_DEVICE = "fakecuda"
# op -> (kernel file and line, the kernel's assert expression), as torch
# 2.11.0+cu130 printed them (the expressions are CUDA_KERNEL_ASSERT's in
# PyTorch's aten/src/ATen/native/cuda sources).
FAKE_ASSERTS = {
    "gather_scatter": ("ScatterGatherKernel.cu", 163,
                       'idx_dim >= 0 && idx_dim < index_size && "index out of bounds"'),
    "index_select": ("Indexing.cu", 1515, "srcIndex < srcSelectDimSize"),
    "index_add": ("Indexing.cu", 1021, "dstIndex < dstAddDimSize"),
    "index_fill": ("IndexKernel.cu", 193, 'idx >= -self_dim_size && idx < self_dim_size && "index out of bounds"'),
}
FAKE_ERROR = ("CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some "
              "other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing "
              "CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")


class FakeCuda:
    """The emulated device's state: alive until its first assert."""
    type = "fakecuda"

    def __init__(self, mode, delay_ms=0.0):
        self.mode = mode
        self.delay_s = delay_ms / 1000.0
        self.dead = False

    def __str__(self):
        return FAKE_DEVICE

    def check_alive(self):
        if self.delay_s:
            import time
            time.sleep(self.delay_s)
        if self.dead:
            raise RuntimeError(FAKE_ERROR)

    def kernel_assert(self, op):
        """The device-side assert of op's kernel: its text on stderr, then a dead context (or exit)."""
        import os
        import sys
        kind = ("index_select" if "index_select" in op else "index_add" if "index_add" in op or "index_reduce" in op
                else "index_fill" if "index_fill" in op or "index_copy" in op else "gather_scatter")
        file, line, expression = FAKE_ASSERTS[kind]
        sys.stderr.write("/pytorch/aten/src/ATen/native/cuda/%s:%d: operator(): block: [0,0,0], thread: [0,0,0] "
                         "Assertion `%s` failed.\n" % (file, line, expression))
        sys.stderr.flush()
        if self.mode == "exit":
            os._exit(134)
        self.dead = True
        raise RuntimeError(FAKE_ERROR)


class DeviceUnavailable(Exception):
    pass


def parse_device(argv):
    """The torch.device named by `--device X` in argv, or None when absent."""
    if "--device" not in argv:
        return None
    at = argv.index("--device")
    if at + 1 >= len(argv):
        raise DeviceUnavailable("--device needs a device name (cpu, cuda, cuda:N)")
    name = argv[at + 1]
    if name == FAKE_DEVICE:
        import os
        mode = os.environ.get("SCATTERPROOF_FAKECUDA_MODE", "raise")
        if mode not in ("raise", "exit"):
            raise DeviceUnavailable("SCATTERPROOF_FAKECUDA_MODE is %r, not raise or exit" % mode)
        try:
            delay_ms = float(os.environ.get("SCATTERPROOF_FAKECUDA_DELAY_MS", "0"))
        except ValueError:
            raise DeviceUnavailable("SCATTERPROOF_FAKECUDA_DELAY_MS is not a number of milliseconds")
        return FakeCuda(mode, delay_ms)
    try:
        device = torch.device(name)
    except (RuntimeError, ValueError) as e:
        raise DeviceUnavailable("torch %s does not know the device %r (%s)" % (torch.__version__, name, e))
    if device.type not in KNOWN_TYPES:
        raise DeviceUnavailable("the torch adapter runs on %s, not on %r" % (" or ".join(KNOWN_TYPES), name))
    if device.type == "cuda":
        if torch.version.cuda is None:
            raise DeviceUnavailable("torch %s is built without CUDA (torch.version.cuda is None): no device %s"
                                    % (torch.__version__, name))
        if not torch.cuda.is_available():
            raise DeviceUnavailable("torch %s (CUDA %s) sees no CUDA device (torch.cuda.is_available() is False)"
                                    % (torch.__version__, torch.version.cuda))
        count = torch.cuda.device_count()
        if device.index is not None and device.index >= count:
            raise DeviceUnavailable("no device %s: torch sees %d CUDA device(s)" % (name, count))
        if device.index is None:
            device = torch.device("cuda", 0)
        # The CUDA context now, before the hello: a standby adapter
        # (PROTOCOL.md "warm standby") is then warm to its first kernel.
        torch.zeros(1, device=device).add_(1)
        torch.cuda.synchronize(device)
    return device


def driver_version(path="/proc/driver/nvidia/version"):
    """The NVIDIA kernel driver's version, from /proc (no NVML needed), or '?'."""
    try:
        with open(path) as f:
            return parse_driver_version(f.readline())
    except OSError:
        return "?"


def parse_driver_version(line):
    """The driver version in /proc/driver/nvidia/version's first line, or '?'.

    The line's words differ between the proprietary and the open kernel module
    ("... Kernel Module  580.95.05  Thu ..." vs "... Open Kernel Module for
    x86_64  580.159.04  Release Build ..."), so the version is the first word
    that is a dotted number rather than the word after "Module".
    """
    for w in line.split():
        if re.fullmatch(r"\d+(\.\d+)+", w):
            return w
    return "?"


def describe_device(device):
    """What the backend's version string says about its device ('' for the plain backend)."""
    if device is None:
        return ""
    if device.type == "cpu":
        return " on cpu"
    if device.type == FAKE_DEVICE:
        return " on fakecuda (the CPU, emulating a CUDA device whose kernels assert, mode %s)" % device.mode
    return " on %s (%s, CUDA %s, driver %s)" % (device, torch.cuda.get_device_name(device), torch.version.cuda,
                                               driver_version())
