// graph_io.h: an ir::Graph to bytes and back, exactly: every value (name, dtype, shape, constant bytes), every node
// (op, name, inputs, outputs, every field of its attrs struct) and the graph's inputs and outputs. Plans embed it
// (plan_io.h); the format is described in graph_io.cpp and versioned by the plan header.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "build/byte_io.h"
#include "ir/graph.h"

namespace strata::build {

/// The graph alone, as bytes (the same section plan files embed).
std::vector<uint8_t> save_graph_bytes(const ir::Graph& graph);
/// Reads what save_graph_bytes wrote; every byte is checked: a malformed input throws strata::Error
/// ("<name_for_errors>: corrupt plan: <what>", NOTE [plan file errors] in byte_io.h), never crashes.
ir::Graph load_graph_bytes(const void* data, size_t size, const std::string& name_for_errors);

/// The graph section inside a larger file.
void write_graph(ByteWriter& w, const ir::Graph& graph);
ir::Graph read_graph(ByteReader& r);

/// One node's attrs, tagged with the variant alternative; both refuse an alternative that is not `op`'s (ops.def).
void write_attrs(ByteWriter& w, ir::OpKind op, const ir::Attrs& attrs);
ir::Attrs read_attrs(ByteReader& r, ir::OpKind op);

}  // namespace strata::build
