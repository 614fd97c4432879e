"""The mindspore adapter returns its operands (backends/process/PROTOCOL.md,
"Operands after the call"): asked by the harness's hello, it says so in its
own hello, and every response (result, error) carries every operand's
storage as the call left it: self as MindSpore wrote it, index and src as
MindSpore left them. Without that the harness reports every MindSpore
verdict's side effects as not observable (SE-3).

    .venv/bin/python adapters/test_mindspore_operands.py     (unittest)

Runs adapters/mindspore_adapter.py with this interpreter, as the mindspore
backend does. Without MindSpore the adapter answers "unavailable" and the
test fails with its reason, as the adapter suites do: never skipped.
"""
import base64
import json
import os
import subprocess
import sys
import unittest

import numpy as np

ADAPTER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mindspore_adapter.py")


def wire(array):
    array = np.ascontiguousarray(array)
    return {"dtype": str(array.dtype), "shape": list(array.shape),
            "strides": [s // array.itemsize for s in array.strides], "offset": 0,
            "storage": base64.b64encode(array.tobytes()).decode("ascii")}


def storage(text, like):
    return np.frombuffer(base64.b64decode(text), dtype=like.dtype).reshape(like.shape)


class MindSporeOperands(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.proc = subprocess.Popen([sys.executable, ADAPTER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
        cls.hello = cls.ask({"type": "hello", "protocol": 2, "operands": True})

    @classmethod
    def tearDownClass(cls):
        if cls.proc.poll() is None:
            cls.proc.stdin.write(json.dumps({"type": "bye"}) + "\n")
            cls.proc.stdin.close()
        cls.proc.wait(timeout=60)
        cls.proc.stdout.close()

    @classmethod
    def ask(cls, message):
        cls.proc.stdin.write(json.dumps(message) + "\n")
        cls.proc.stdin.flush()
        line = cls.proc.stdout.readline()
        if not line:
            raise AssertionError("the mindspore adapter exited without answering %r" % message["type"])
        return json.loads(line)

    def setUp(self):
        if self.hello.get("type") == "unavailable":
            self.fail("the mindspore adapter is unavailable: %s" % self.hello.get("reason"))

    def run_scatter(self, op, dim, tensors):
        return self.ask({"type": "run", "id": 1, "op": op, "args": {"dim": dim},
                         "tensors": {name: wire(a) for name, a in tensors.items()}})

    def test_hello_says_operands(self):
        self.assertIs(self.hello.get("operands"), True, self.hello)

    def test_a_result_carries_self_as_mindspore_wrote_it(self):
        self_ = np.zeros((2, 3), np.float32)
        index = np.array([[1, 0, 1]], np.int64)
        src = np.array([[1, 2, 3]], np.float32)
        response = self.run_scatter("mindspore.scatter_", 0, {"self": self_, "index": index, "src": src})
        self.assertEqual(response["type"], "result", response)
        self.assertIn("operands", response)
        operands = response["operands"]
        self.assertEqual(sorted(operands), ["index", "self", "src"])
        written = np.array([[0, 2, 0], [1, 0, 3]], np.float32)
        np.testing.assert_array_equal(storage(operands["self"], self_), written)
        np.testing.assert_array_equal(storage(response["outputs"][0]["storage"], self_), written)
        np.testing.assert_array_equal(storage(operands["index"], index), index)
        np.testing.assert_array_equal(storage(operands["src"], src), src)

    def test_an_error_carries_the_operands_too(self):
        self_ = np.arange(6, dtype=np.float32).reshape(2, 3)
        index = np.array([[1, 0, 1]], np.int64)
        src = np.array([[1, 2, 3]], np.float32)
        response = self.run_scatter("mindspore.scatter_", 2, {"self": self_, "index": index, "src": src})
        self.assertEqual(response["type"], "error", response)
        self.assertEqual(sorted(response.get("operands", {})), ["index", "self", "src"], response)
        np.testing.assert_array_equal(storage(response["operands"]["self"], self_), self_)

    def test_a_backward_carries_every_operand(self):
        tensors = {"self": np.zeros((2, 3), np.float32), "index": np.array([[1, 0, 1]], np.int64),
                   "src": np.array([[1, 2, 3]], np.float32), "grad_output": np.ones((2, 3), np.float32)}
        response = self.run_scatter("mindspore.scatter_.backward", 0, tensors)
        self.assertEqual(response["type"], "result", response)
        self.assertEqual(sorted(response.get("operands", {})), sorted(tensors), response)
        for name, array in tensors.items():
            np.testing.assert_array_equal(storage(response["operands"][name], array), array)


if __name__ == "__main__":
    unittest.main()
