// graph_io.cpp: the graph section of a plan file. Little-endian; strings and lists are a u32 count then the items;
// each part opens with a 4-character tag so a reader that lost its place says where:
//   "GRPH" name
//   "VALS" count, per value: name, dtype u8, has_shape u8, shape i64s, has_constant u8,
//          [constant: dtype u8, layout u8, shape i64s, nbytes u64, the bytes]
//   "NODS" count, per node: op u8, name, inputs i32s, outputs i32s, attrs (graph_io_attrs.cpp)
//   "GIOS" graph inputs i32s, graph outputs i32s
//   "GEND"
// The format changes only with the plan format version (plan_io.cpp).
#include "build/graph_io.h"

#include <cstring>
#include <limits>

#include "core/check.h"

namespace strata::build {
namespace {

constexpr size_t kMaxRank = 64;  // far above any real tensor; a larger rank is a damaged file

void write_shape(ByteWriter& w, const Shape& shape) {
    w.i64s(shape);
}

// `min_dim` is -1 for value shapes (unknown dims) and 0 for constants.
Shape read_shape(ByteReader& r, const char* what, int64_t min_dim) {
    Shape shape = r.i64s(what);
    r.check(shape.size() <= kMaxRank, "{} has rank {} (at most {})", what, shape.size(), kMaxRank);
    for (int64_t d : shape) r.check(d >= min_dim, "{} {} has a dimension {}", what, shape_str(shape), d);
    return shape;
}

void write_ids(ByteWriter& w, const std::vector<ir::ValueId>& ids) {
    w.count(ids.size(), "a value list");
    for (ir::ValueId id : ids) w.i32(id);
}

// Ids must name a value; `allow_absent` admits kNoValue (a node's omitted optional input or output).
std::vector<ir::ValueId> read_ids(ByteReader& r, const char* what, size_t num_values, bool allow_absent) {
    const size_t n = r.count(what, 4);
    std::vector<ir::ValueId> ids(n);
    for (size_t i = 0; i < n; ++i) {
        const ir::ValueId id = r.i32(what);
        const bool absent_ok = allow_absent && id == ir::kNoValue;
        r.check(absent_ok || (id >= 0 && static_cast<size_t>(id) < num_values),
                "{} names value {}, the graph has {} values", what, id, num_values);
        ids[i] = id;
    }
    return ids;
}

void write_constant(ByteWriter& w, const Tensor& t) {
    w.u8(static_cast<uint8_t>(t.dtype()));
    w.u8(static_cast<uint8_t>(t.layout()));
    write_shape(w, t.shape());
    w.u64(t.nbytes());
    w.raw(t.raw(), t.nbytes());
}

Tensor read_constant(ByteReader& r, const std::string& value_name) {
    const DType dtype = r.enumeration("constant dtype", DType::boolean);
    const Layout layout = r.enumeration("constant layout", Layout::chwn);
    const Shape shape = read_shape(r, "constant shape", 0);
    // The element count, overflow-checked: it must match the byte count that follows.
    uint64_t numel = 1;
    for (int64_t d : shape) {
        const auto ud = static_cast<uint64_t>(d);
        r.check(ud == 0 || numel <= std::numeric_limits<uint64_t>::max() / ud / 8,
                "constant '{}' shape {} is too large", value_name, shape_str(shape));
        numel *= ud;
    }
    const uint64_t nbytes = r.u64("constant byte count");
    const uint64_t want = numel * dtype_size(dtype);
    r.check(nbytes == want, "constant '{}' ({} {}) has {} data bytes, expected {}", value_name, dtype_name(dtype),
            shape_str(shape), nbytes, want);
    r.check(nbytes <= r.left(), "truncated: constant '{}' needs {} bytes, {} left", value_name, nbytes, r.left());
    const uint8_t* src = r.raw(static_cast<size_t>(nbytes), "constant data");
    Tensor t = Tensor::empty(dtype, shape, layout);
    if (nbytes > 0) std::memcpy(t.raw(), src, static_cast<size_t>(nbytes));
    return t;
}

void write_value(ByteWriter& w, const ir::Value& v) {
    w.str(v.name);
    w.u8(static_cast<uint8_t>(v.dtype));
    w.boolean(v.has_shape);
    write_shape(w, v.shape);
    w.boolean(v.constant.has_value());
    if (v.constant) write_constant(w, *v.constant);
}

void read_value(ByteReader& r, ir::Graph& g) {
    std::string name = r.str("value name");
    const DType dtype = r.enumeration("value dtype", DType::boolean);
    const bool has_shape = r.boolean("value has_shape");
    Shape shape = read_shape(r, "value shape", -1);
    const ir::ValueId id = g.add_value(name, dtype, std::move(shape), has_shape);
    if (r.boolean("value has_constant")) g.value(id).constant = read_constant(r, name);
}

void write_node(ByteWriter& w, const ir::Node& n) {
    w.u8(static_cast<uint8_t>(n.op));
    w.str(n.name);
    write_ids(w, n.inputs);
    write_ids(w, n.outputs);
    write_attrs(w, n.op, n.attrs);
}

void read_node(ByteReader& r, ir::Graph& g) {
    const uint8_t op = r.u8("node op");
    r.check(op < ir::kOpCount, "node op {} is not an op (there are {})", op, ir::kOpCount);
    std::string name = r.str("node name");
    std::vector<ir::ValueId> inputs = read_ids(r, "node inputs", g.num_values(), true);
    std::vector<ir::ValueId> outputs = read_ids(r, "node outputs", g.num_values(), true);
    ir::Attrs attrs = read_attrs(r, static_cast<ir::OpKind>(op));
    g.add_node(static_cast<ir::OpKind>(op), std::move(name), std::move(inputs), std::move(outputs), std::move(attrs));
}

}  // namespace

void write_graph(ByteWriter& w, const ir::Graph& graph) {
    w.tag("GRPH");
    w.str(graph.name);
    w.tag("VALS");
    w.count(graph.num_values(), "the value list");
    for (size_t i = 0; i < graph.num_values(); ++i) write_value(w, graph.value(static_cast<ir::ValueId>(i)));
    w.tag("NODS");
    w.count(graph.nodes().size(), "the node list");
    for (const ir::Node& n : graph.nodes()) write_node(w, n);
    w.tag("GIOS");
    write_ids(w, graph.inputs());
    write_ids(w, graph.outputs());
    w.tag("GEND");
}

ir::Graph read_graph(ByteReader& r) {
    ir::Graph g;
    r.tag("GRPH");
    g.name = r.str("graph name");
    r.tag("VALS");
    // A value takes at least 11 bytes (empty name and shape), a node at least 14: the counts are checked with that.
    const size_t num_values = r.count("value count", 11);
    r.check(num_values <= static_cast<size_t>(std::numeric_limits<ir::ValueId>::max()), "{} values is too many",
            num_values);
    for (size_t i = 0; i < num_values; ++i) read_value(r, g);
    r.tag("NODS");
    const size_t num_nodes = r.count("node count", 14);
    for (size_t i = 0; i < num_nodes; ++i) read_node(r, g);
    r.tag("GIOS");
    g.inputs() = read_ids(r, "graph inputs", g.num_values(), false);
    g.outputs() = read_ids(r, "graph outputs", g.num_values(), false);
    r.tag("GEND");
    return g;
}

std::vector<uint8_t> save_graph_bytes(const ir::Graph& graph) {
    ByteWriter w;
    write_graph(w, graph);
    return std::move(w.bytes());
}

ir::Graph load_graph_bytes(const void* data, size_t size, const std::string& name_for_errors) {
    ByteReader r(data, size, name_for_errors);
    ir::Graph g = read_graph(r);
    r.check(r.left() == 0, "{} unexpected bytes after the graph", r.left());
    return g;
}

}  // namespace strata::build
