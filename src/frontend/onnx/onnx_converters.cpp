// onnx_converters.cpp: the one table from ONNX op type to converter, filled by each op family's file.
#include <algorithm>

#include "frontend/onnx/onnx_context.h"

namespace strata::frontend {
namespace {

const ConverterTable& table() {
    static const ConverterTable t = [] {
        ConverterTable t;
        add_conv_converters(t);
        add_elementwise_converters(t);
        add_pool_converters(t);
        add_math_converters(t);
        add_tensor_op_converters(t);
        add_misc_converters(t);
        return t;
    }();
    return t;
}

}  // namespace

Converter find_converter(const std::string& op_type) {
    auto it = table().find(op_type);
    return it == table().end() ? nullptr : it->second;
}

std::string supported_ops_text() {
    std::vector<std::string> names;
    for (const auto& [name, fn] : table()) names.push_back(name);
    std::sort(names.begin(), names.end());
    std::string text;
    for (const std::string& n : names) text += (text.empty() ? "" : ", ") + n;
    return text;
}

}  // namespace strata::frontend
