"""What the torch adapters' version string says about a CUDA device
(adapters/torch_device.py): the driver version is read from
/proc/driver/nvidia/version, whose first line differs between NVIDIA's
proprietary and open kernel modules. The H100 run of issue 30 printed
"driver for" because the open module's line has "Module for x86_64" where
the proprietary one has "Module  <version>".

    .venv-current/bin/python adapters/test_torch_device.py     (unittest)
"""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_device  # noqa: E402  (imports torch: run with a venv's interpreter)


class DriverVersion(unittest.TestCase):
    def test_proprietary_module_line(self):
        line = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Thu Sep 25 20:56:06 UTC 2025"
        self.assertEqual(torch_device.parse_driver_version(line), "580.95.05")

    def test_open_module_line(self):
        line = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  "
                "Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Oct 14 22:51:34 UTC 2025")
        self.assertEqual(torch_device.parse_driver_version(line), "580.159.04")

    def test_no_version_is_unknown(self):
        self.assertEqual(torch_device.parse_driver_version("NVRM version: NVIDIA UNIX Kernel Module"), "?")
        self.assertEqual(torch_device.parse_driver_version(""), "?")

    def test_reads_the_file_and_missing_file_is_unknown(self):
        with tempfile.NamedTemporaryFile("w", suffix=".version", delete=False) as f:
            f.write("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  590.1.2  Release Build\n")
        try:
            self.assertEqual(torch_device.driver_version(f.name), "590.1.2")
        finally:
            os.unlink(f.name)
        self.assertEqual(torch_device.driver_version(f.name), "?")


if __name__ == "__main__":
    unittest.main()
