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
import torch

KNOWN_TYPES = ("cpu", "cuda")


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
        # The CUDA context now, before the hello: the first case pays no
        # context creation.
        torch.zeros(1, device=device).add_(1)
        torch.cuda.synchronize(device)
    return device


def driver_version():
    """The NVIDIA kernel driver's version, from /proc (no NVML needed), or '?'."""
    try:
        with open("/proc/driver/nvidia/version") as f:
            words = f.readline().split()
    except OSError:
        return "?"
    # "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Thu ..."
    for i, w in enumerate(words):
        if w == "Module" and i + 1 < len(words):
            return words[i + 1]
    return "?"


def describe_device(device):
    """What the backend's version string says about its device ('' for the plain backend)."""
    if device is None:
        return ""
    if device.type == "cpu":
        return " on cpu"
    return " on %s (%s, CUDA %s, driver %s)" % (device, torch.cuda.get_device_name(device), torch.version.cuda,
                                               driver_version())
