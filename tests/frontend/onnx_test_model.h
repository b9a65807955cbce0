// onnx_test_model.h: builds small ONNX ModelProtos in memory for the frontend tests (converters, legacy attributes,
// malformed files), and the assertions they share.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "frontend/onnx/onnx_import.h"
#include "ir/graph.h"
#include "onnx/onnx.pb.h"
#include "test_support.h"

namespace strata::test {

inline int32_t onnx_type(DType t) {
    switch (t) {
        case DType::f32:
            return onnx::TensorProto_DataType_FLOAT;
        case DType::f16:
            return onnx::TensorProto_DataType_FLOAT16;
        case DType::bf16:
            return onnx::TensorProto_DataType_BFLOAT16;
        case DType::i8:
            return onnx::TensorProto_DataType_INT8;
        case DType::u8:
            return onnx::TensorProto_DataType_UINT8;
        case DType::i32:
            return onnx::TensorProto_DataType_INT32;
        case DType::i64:
            return onnx::TensorProto_DataType_INT64;
        case DType::boolean:
            return onnx::TensorProto_DataType_BOOL;
    }
    return 0;
}

/// A TensorProto holding `t` as raw_data.
inline onnx::TensorProto tensor_proto(const std::string& name, const Tensor& t) {
    onnx::TensorProto p;
    p.set_name(name);
    p.set_data_type(onnx_type(t.dtype()));
    for (int64_t d : t.shape()) p.add_dims(d);
    p.set_raw_data(std::string(static_cast<const char*>(t.raw()), t.nbytes()));
    return p;
}

inline Tensor i64_tensor(const std::vector<int64_t>& v) {
    Tensor t = Tensor::empty(DType::i64, {static_cast<int64_t>(v.size())});
    std::memcpy(t.raw(), v.data(), v.size() * 8);
    return t;
}

inline Tensor f32_scalar(float v) {
    Tensor t = Tensor::empty(DType::f32, {});
    t.data<float>()[0] = v;
    return t;
}

inline void set_attr(onnx::NodeProto& n, const std::string& name, int64_t v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
}
inline void set_attr(onnx::NodeProto& n, const std::string& name, float v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
}
inline void set_attr(onnx::NodeProto& n, const std::string& name, const std::string& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s(v);
}
inline void set_attr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t x : v) a->add_ints(x);
}
inline void set_attr(onnx::NodeProto& n, const std::string& name, const Tensor& t) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::TENSOR);
    *a->mutable_t() = tensor_proto("", t);
}

/// A model under construction: opset, graph inputs/outputs, initializers and nodes.
class OnnxModel {
public:
    explicit OnnxModel(int64_t opset = 17) {
        model_.set_ir_version(8);
        auto* o = model_.add_opset_import();
        o->set_domain("");
        o->set_version(opset);
        model_.mutable_graph()->set_name("test_graph");
    }
    onnx::ModelProto& proto() { return model_; }
    onnx::GraphProto& graph() { return *model_.mutable_graph(); }

    /// A graph input; a dim of -1 becomes a dim_param.
    OnnxModel& input(const std::string& name, const Shape& shape, DType dtype = DType::f32) {
        auto* vi = graph().add_input();
        vi->set_name(name);
        auto* tt = vi->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(onnx_type(dtype));
        auto* sh = tt->mutable_shape();
        for (int64_t d : shape) {
            if (d < 0)
                sh->add_dim()->set_dim_param("N");
            else
                sh->add_dim()->set_dim_value(d);
        }
        return *this;
    }
    OnnxModel& output(const std::string& name) {
        graph().add_output()->set_name(name);
        return *this;
    }
    OnnxModel& initializer(const std::string& name, const Tensor& t) {
        *graph().add_initializer() = tensor_proto(name, t);
        return *this;
    }
    onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = "") {
        auto* n = graph().add_node();
        n->set_op_type(op);
        n->set_name(name.empty() ? op + "_" + std::to_string(graph().node_size()) : name);
        for (const auto& i : inputs) n->add_input(i);
        for (const auto& o : outputs) n->add_output(o);
        return *n;
    }

    std::string bytes() const { return model_.SerializeAsString(); }
    std::shared_ptr<ir::Graph> import(const std::string& base_dir = "") const {
        std::string b = bytes();
        return frontend::import_onnx_bytes(b.data(), b.size(), "test.onnx", base_dir);
    }

private:
    onnx::ModelProto model_;
};

inline size_t count_ops(const ir::Graph& g, ir::OpKind op) {
    size_t n = 0;
    for (const ir::Node& node : g.nodes()) n += node.op == op;
    return n;
}

/// The only node of kind `op` (fails the test when there is not exactly one).
inline const ir::Node& only_node(const ir::Graph& g, ir::OpKind op) {
    const ir::Node* found = nullptr;
    for (const ir::Node& node : g.nodes())
        if (node.op == op) {
            EXPECT_EQ(found, nullptr) << "more than one " << ir::op_name(op);
            found = &node;
        }
    if (!found) throw std::runtime_error(std::string("no node of kind ") + ir::op_name(op));
    return *found;
}

/// Runs `f`, which must throw strata::Error with `code` and a message containing each of `parts`.
inline void expect_error(const std::function<void()>& f, StatusCode code, const std::vector<std::string>& parts) {
    try {
        f();
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), code) << "message: " << e.what();
        for (const std::string& p : parts)
            EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << "'" << p << "' not in: " << e.what();
        return;
    }
    ADD_FAILURE() << "no strata::Error thrown";
}

}  // namespace strata::test
