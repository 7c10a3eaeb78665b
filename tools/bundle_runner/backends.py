"""backends.py — the compilers and runtimes a bundle runs on: IREE (llvm-cpu, the local-task
driver) and XLA's CPU backend through jaxlib.

Both take the module text as exported (StableHLO with `stablehlo.composite`s) and hold the
weights as call arguments uploaded to the device ONCE, at load (decided over IREE's parameter
archives: the modules declare weights as leading `tessera.role = "weight"` arguments, so a call
passes the resident device buffers and nothing is copied per call; the upload is timed and
reported). A call's results stay on the device (decode feeds its K/V results straight into the
next step); `host()` copies one back. With decode's K/V declared donated/aliased
(`tf.aliasing_output`, `jax.buffer_donor`), XLA may consume those inputs: the runner never reuses
an input array after a call.

Interface of a backend: load(name, text, vmfb_path=None) → a module key; upload(array) → a device
array; call(key, args) → [device arrays]; host(x) → numpy.
"""
import os
import subprocess
import sys

import ml_dtypes
import numpy as np

VENV_BIN = os.path.dirname(sys.executable)


def iree_flags(target_cpu="host"):
    """iree-compile flags for the host CPU (llvm-cpu): recorded beside every .vmfb written."""
    return ["--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu",
            f"--iree-llvmcpu-target-cpu={target_cpu}"]


def iree_compile_file(src, out, flags):
    """Runs iree-compile on one module; a failure raises with the compiler's own message."""
    tool = os.path.join(VENV_BIN, "iree-compile")
    cmd = [tool if os.path.exists(tool) else "iree-compile", *flags, src, "-o", out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        lines = [l for l in p.stderr.splitlines() if "error" in l] or p.stderr.splitlines()
        raise CompileError(f"iree-compile {os.path.basename(src)}: " + "\n".join(lines[:6]))
    return cmd


class CompileError(Exception):
    pass


class IreeBackend:
    name = "iree"

    def __init__(self, driver="local-task"):
        import iree.runtime as rt
        self.rt = rt
        self.config = rt.Config(driver)
        self.device = self.config.device
        self.functions = {}

    def load(self, key, text, vmfb_path=None, work_dir=None):
        """A compiled module: the .vmfb beside the text when given, else compiled now (into
        work_dir when given, else in memory)."""
        rt = self.rt
        if vmfb_path and os.path.exists(vmfb_path):
            with open(vmfb_path, "rb") as f:
                vmfb = f.read()
        else:
            import tempfile
            d = work_dir or tempfile.mkdtemp(prefix="bundle-runner-")
            src = os.path.join(d, key.replace("/", "_") + ".mlir")
            with open(src, "w") as f:
                f.write(text)
            out = src[:-5] + ".vmfb"
            iree_compile_file(src, out, iree_flags())
            with open(out, "rb") as f:
                vmfb = f.read()
        ctx = rt.SystemContext(config=self.config)
        vm = rt.VmModule.copy_buffer(ctx.instance, vmfb)
        ctx.add_vm_module(vm)
        fn = ctx.modules[vm.name]["main"]
        self.functions[key] = (ctx, fn)
        return vm.lookup_function("main").reflection.get("iree.abi.declaration", "")

    def upload(self, a):
        rt = self.rt
        a = np.ascontiguousarray(a)
        if a.dtype == ml_dtypes.bfloat16:
            # numpy has no bf16 IREE knows of (asdevicearray ignores element_type): the bytes as
            # u16 in a buffer view typed bf16, which is what the module asserts.
            view = self.device.allocator.allocate_buffer_copy(
                memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT, device=self.device,
                buffer=a.view(np.uint16), element_type=rt.HalElementType.BFLOAT_16)
            return rt.DeviceArray(self.device, view, override_dtype=a.dtype)
        return rt.asdevicearray(self.device, a)

    def call(self, key, args):
        out = self.functions[key][1](*args)
        return list(out) if isinstance(out, (tuple, list)) else [out]

    def host(self, x):
        # A copy: to_host() may map the device buffer, which the runtime reuses once released.
        return np.array(x.to_host() if hasattr(x, "to_host") else x, copy=True)


class XlaBackend:
    name = "xla"

    def __init__(self):
        import jax
        from jax._src.lib import xla_client
        self.jax = jax
        self.xc = xla_client
        self.cpu = jax.devices("cpu")[0]
        self.client = self.cpu.client
        self.executables = {}

    def load(self, key, text, vmfb_path=None, work_dir=None):
        """Compiles the StableHLO text with XLA's CPU compiler (jaxlib's client API)."""
        try:
            exe = self.client.compile_and_load(text, self.xc.DeviceList((self.cpu,)), self.xc.CompileOptions())
        except Exception as e:  # jaxlib raises XlaRuntimeError/ValueError with the compiler's text
            raise CompileError(f"XLA compile {key}: {str(e).splitlines()[0][:400]}") from None
        self.executables[key] = exe
        return None

    def upload(self, a):
        return self.jax.device_put(np.ascontiguousarray(a), self.cpu)

    def call(self, key, args):
        args = [a if hasattr(a, "addressable_shards") else self.upload(a) for a in args]
        res = self.executables[key].execute_sharded(args)
        return [o[0] for o in res.disassemble_into_single_device_arrays()]

    def host(self, x):
        return np.asarray(x)


def make(name):
    if name == "iree":
        return IreeBackend()
    if name == "xla":
        return XlaBackend()
    raise ValueError(f"unknown backend {name!r} (iree, xla)")
