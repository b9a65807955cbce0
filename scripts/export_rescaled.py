"""Export torchvision models whose activations fit in fp16, and show why the shared ones do not.

    python3 scripts/export_rescaled.py OUTDIR NAME [NAME ...]

The shared models (../shared/models, made by export.py) keep torchvision's default initialisation. For networks with
depthwise convolutions that init shrinks the activations layer after layer (kaiming fan_out counts all output
channels, but a depthwise filter sums only k*k inputs): mobilenet_v2's logits are about 3e-9 and efficientnet_b0's
about 4e-14, below fp16's smallest subnormal (6e-8), so any fp16 engine, PyTorch included, returns zeros there.

For each NAME this script
  1. prints PyTorch's own fp16 and bf16 error against its fp32 on the GPU (TF32 off), for the default init and for
     the rescaled model of 2., and
  2. writes NAME_rescaled.onnx / .input.npy / .logits.npy: the same architecture and seed, with every BatchNorm's
     weight and bias scaled (in one pass, in order) so its output has unit standard deviation on the sample input,
     the data-dependent rescaling of LSUV init. The logits come from PyTorch fp32 on the CPU, as export.py's do;
     with a GPU, PyTorch's own fp16 and bf16 logits of that model go beside them (NAME_rescaled.pytorch_fp16.npy,
     .pytorch_bf16.npy): tests/gpu/test_models_gpu.cpp holds strata to PyTorch's error where it exceeds 2e-2.
Needs torch and torchvision (the GPU machine has them)."""
import copy, os, sys
import numpy as np, torch, torchvision


def make(name):
    torch.manual_seed(0)
    if name == "googlenet":
        return torchvision.models.googlenet(aux_logits=False, init_weights=True).eval()
    return getattr(torchvision.models, name)().eval()


def sample():
    return torch.randn(2, 3, 224, 224, generator=torch.Generator().manual_seed(1))


def rel_error(got, want):
    return float((got.float() - want).abs().max() / want.abs().max())


def pytorch_precisions(name, model):
    """Prints PyTorch's fp16 and bf16 error against its fp32 on the GPU; returns those logits by precision name."""
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    model, x = model.cuda(), sample().cuda()
    logits = {}
    with torch.no_grad():
        want = model(x).float()
        for dtype, key in ((torch.float16, "fp16"), (torch.bfloat16, "bf16")):
            got = model.to(dtype)(x.to(dtype)).float()
            logits[key] = got.cpu()
            same = bool((got.argmax(1) == want.argmax(1)).all())
            print(f"{name} PyTorch {dtype}: max|logit| fp32 {float(want.abs().max()):.3g}, "
                  f"error vs fp32 {rel_error(got, want):.3g}, same top-1 {same}")
            model = model.float()
    return logits


def rescale_batchnorms(model, x):
    def hook(bn, inputs, output):
        scale = 1.0 / float(output.std().clamp_min(1e-30))
        bn.weight.mul_(scale)
        bn.bias.mul_(scale)
        return output * scale
    handles = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    with torch.no_grad():
        model(x)
    for h in handles:
        h.remove()


def export_rescaled(name, out):
    model, x = make(name), sample()
    rescale_batchnorms(model, x)
    peer = pytorch_precisions(name + "_rescaled", copy.deepcopy(model)) if torch.cuda.is_available() else {}
    with torch.no_grad():
        y = model(x)
    stem = os.path.join(out, f"{name}_rescaled")
    torch.onnx.export(model, (x,), stem + ".onnx", input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}}, opset_version=17, dynamo=False)
    np.save(stem + ".input.npy", x.numpy())
    np.save(stem + ".logits.npy", y.numpy())
    for precision, logits in peer.items():  # the test holds strata to these where they miss 2e-2 themselves
        np.save(stem + f".pytorch_{precision}.npy", logits.numpy())
    print(f"wrote {name}_rescaled: max|logit| {float(y.abs().max()):.3g}")


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:]:
        if torch.cuda.is_available():
            pytorch_precisions(name, make(name))
        export_rescaled(name, out)
