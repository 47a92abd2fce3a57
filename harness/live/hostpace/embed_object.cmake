# cmake -DIN=FILE -DOUT=FILE.cc -P embed_object.cmake: writes FILE's bytes as the C++ array
# gw::hostpace::kEdtBpfObject (the compiled tc-BPF program, edt.bpf.c), so that the binary
# carries its program wherever it is installed.
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" chars)
math(EXPR bytes "${chars} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n" body "${body}")
file(WRITE "${OUT}"
     "// Generated from ${IN} by embed_object.cmake; do not edit.\n"
     "#include <cstddef>\n"
     "namespace gw::hostpace {\n"
     "extern const unsigned char kEdtBpfObject[];\n"
     "extern const std::size_t kEdtBpfObjectSize;\n"
     "alignas(8) const unsigned char kEdtBpfObject[] = {\n${body}\n};\n"
     "const std::size_t kEdtBpfObjectSize = ${bytes};\n"
     "}  // namespace gw::hostpace\n")
