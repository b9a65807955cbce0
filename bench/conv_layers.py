import onnx, sys
from onnx import shape_inference
m = shape_inference.infer_shapes(onnx.load(sys.argv[1]))
batch = int(sys.argv[2]) if len(sys.argv) > 2 else 1
shapes = {}
for vi in list(m.graph.value_info) + list(m.graph.input) + list(m.graph.output):
    shapes[vi.name] = [d.dim_value if d.dim_value else batch for d in vi.type.tensor_type.shape.dim]
inits = {i.name: list(i.dims) for i in m.graph.initializer}
for n in m.graph.node:
    if n.op_type != "Conv": continue
    a = {x.name: onnx.helper.get_attribute_value(x) for x in n.attribute}
    x = shapes[n.input[0]]; w = inits[n.input[1]]
    pads = a.get("pads", [0, 0, 0, 0]); s = a.get("strides", [1, 1]); g = a.get("group", 1)
    print(batch, x[1], x[2], x[3], w[0], w[2], w[3], s[0], pads[0], g)
