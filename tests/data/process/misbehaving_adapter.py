"""A protocol-speaking adapter that misbehaves on purpose, for the supervisor tests.

    misbehaving_adapter.py MODE

It answers every "run" request by returning `self` unchanged (op
torch.scatter), except requests whose args.dim is 1 (the poisoned case), on
which it does MODE:
  abort      os.abort()                        -> SIGABRT
  segv       dereferences NULL through ctypes  -> SIGSEGV
  exit       exits with status 3
  hang       never answers
  slow       answers after 0.3 s
  garbage    writes a line that is not JSON
  wrong-id   answers with another request's id
  extra      answers, then writes a second line
  bad-hello  (any request) speaks protocol 99 in the handshake
  unavailable (any request) says its framework is missing
  device-assert       writes a CUDA kernel's assert to stderr, then answers the
                      error PyTorch raises after it ("CUDA error: device-side
                      assert triggered")
  device-assert-exit  writes the kernel's assert to stderr and exits (134)
  cuda-error          answers another CUDA error ("CUDA error: an illegal
                      memory access was encountered")
Self-contained (json only), so it runs with any python3.
"""
import ctypes
import json
import os
import sys
import time

mode = sys.argv[1]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        if mode == "unavailable":
            send({"type": "unavailable", "reason": "fakeframework is not installed"})
            sys.exit(0)
        send({"type": "hello", "protocol": 99 if mode == "bad-hello" else 2, "name": "misbehaving",
              "version": mode, "ops": ["torch.scatter"]})
        continue
    if message["type"] == "bye":
        break
    answer = {"type": "result", "id": message["id"], "outputs": [message["tensors"]["self"]]}
    if message["args"].get("dim") == 1:
        print("misbehaving adapter: doing %s on request %d" % (mode, message["id"]), file=sys.stderr, flush=True)
        if mode == "abort":
            os.abort()
        elif mode == "segv":
            ctypes.string_at(0)
        elif mode == "exit":
            sys.exit(3)
        elif mode == "hang":
            time.sleep(3600)
        elif mode == "slow":
            time.sleep(0.3)
        elif mode == "garbage":
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
            continue
        elif mode == "wrong-id":
            answer["id"] = message["id"] + 1000
        elif mode in ("device-assert", "device-assert-exit"):
            print("/pytorch/aten/src/ATen/native/cuda/ScatterGatherKernel.cu:163: operator(): block: [0,0,0], "
                  "thread: [1,0,0] Assertion `idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"` "
                  "failed.", file=sys.stderr, flush=True)
            if mode == "device-assert-exit":
                os._exit(134)
            answer = {"type": "error", "id": message["id"], "category": None,
                      "message": "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be "
                                 "asynchronously reported at some other API call"}
        elif mode == "cuda-error":
            answer = {"type": "error", "id": message["id"], "category": None,
                      "message": "RuntimeError: CUDA error: an illegal memory access was encountered"}
        elif mode == "extra":
            send(answer)
            answer = {"type": "result", "id": message["id"], "outputs": []}
    send(answer)
