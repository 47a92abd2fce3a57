// Traffic-class matches and address prefixes (docs/profiles.md "Classes").
#include <arpa/inet.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "core/errors.h"
#include "core/json_reader.h"
#include "emulator/engine/profile.h"

namespace gw {

namespace {

std::optional<std::uint8_t> parse_ecn_name(const JsonReader& r, const char* key) {
  const auto s = r.optional_string(key);
  if (!s) {
    return std::nullopt;
  }
  // RFC 3168 codepoints, named as in the match documentation.
  static constexpr std::pair<const char*, std::uint8_t> kNames[] = {
      {"not-ect", 0}, {"ect1", 1}, {"ect0", 2}, {"ce", 3}};
  for (const auto& [name, code] : kNames) {
    if (*s == name) {
      return code;
    }
  }
  r.fail(key, "must be one of not-ect, ect0, ect1, ce, got \"" + *s + "\"");
}

// A port (a number) or a range of them ("49152-50175", both ends included).
std::vector<PortRange> parse_ports(const JsonReader& r, const char* key) {
  std::vector<PortRange> out;
  if (!r.has(key)) {
    return out;
  }
  const auto& v = r.raw().at(key);
  const auto port = [](std::int64_t p) { return p >= 0 && p <= 65535; };
  const auto one = [&](const nlohmann::json& x, const std::string& where) {
    if (x.is_number_integer() && port(x.get<std::int64_t>())) {
      const auto p = static_cast<std::uint16_t>(x.get<std::int64_t>());
      out.push_back({p, p});
      return;
    }
    std::int64_t first = -1;
    std::int64_t last = -1;
    char dash = 0;
    char extra = 0;
    if (x.is_string() &&
        std::sscanf(x.get<std::string>().c_str(), "%" SCNd64 " %c %" SCNd64 " %c", &first, &dash, &last,
                    &extra) == 3 &&
        dash == '-' && port(first) && port(last) && first <= last) {
      out.push_back({static_cast<std::uint16_t>(first), static_cast<std::uint16_t>(last)});
      return;
    }
    throw InputError(
        r.file(), where,
        "must be a port number in [0, 65535] or a range \"FIRST-LAST\" of them, got " + describe(x));
  };
  if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      one(v[i], r.path_of(key) + "[" + std::to_string(i) + "]");
    }
  } else {
    one(v, r.path_of(key));
  }
  return out;
}

std::vector<Prefix> parse_prefixes(const JsonReader& r, const char* key) {
  std::vector<Prefix> out;
  if (!r.has(key)) {
    return out;
  }
  const auto& v = r.raw().at(key);
  if (v.is_string()) {
    out.push_back(parse_prefix(v.get<std::string>(), r.file(), r.path_of(key)));
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) {
      const std::string where = r.path_of(key) + "[" + std::to_string(i) + "]";
      if (!v[i].is_string()) {
        throw InputError(r.file(), where, "must be an address or prefix string, got " + describe(v[i]));
      }
      out.push_back(parse_prefix(v[i].get<std::string>(), r.file(), where));
    }
  } else {
    r.fail(key, "must be an address/prefix string or an array of them, got " + describe(v));
  }
  return out;
}

}  // namespace

ClassMatch parse_match(const JsonReader& r) {
  ClassMatch m;
  m.src = parse_prefixes(r, "src");
  m.dst = parse_prefixes(r, "dst");
  if (r.has("protocol")) {
    const auto& v = r.raw().at("protocol");
    if (v.is_string()) {
      const std::string p = r.choice("protocol", {"tcp", "udp", "icmp", "icmpv6"}, "");
      m.protocol = p == "tcp" ? 6 : p == "udp" ? 17 : p == "icmp" ? 1 : 58;
    } else {
      m.protocol = static_cast<std::uint8_t>(r.integer("protocol", 0, 255));
    }
  }
  m.src_ports = parse_ports(r, "src_port");
  m.dst_ports = parse_ports(r, "dst_port");
  if (const auto d = r.optional_integer("dscp", 0, 63)) {
    m.dscp = static_cast<std::uint8_t>(*d);
  }
  if (const auto e = parse_ecn_name(r, "ecn")) {
    m.ecn = static_cast<Ecn>(*e);
  }
  if (r.has("roce")) {
    m.roce = r.boolean("roce", false);
  }
  if (r.has("roce_opcode")) {
    const auto& v = r.raw().at("roce_opcode");
    const auto add = [&](const nlohmann::json& x, const std::string& where) {
      if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::int64_t>() > 255) {
        throw InputError(r.file(), where, "must be an opcode in [0, 255], got " + describe(x));
      }
      m.roce_opcodes.push_back(static_cast<std::uint8_t>(x.get<std::int64_t>()));
    };
    if (v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        add(v[i], r.path_of("roce_opcode") + "[" + std::to_string(i) + "]");
      }
    } else {
      add(v, r.path_of("roce_opcode"));
    }
  }
  if (const auto qp = r.optional_integer("roce_dest_qp", 0, (1 << 24) - 1)) {
    m.roce_dest_qp = static_cast<std::uint32_t>(*qp);
  }
  r.finish();
  return m;
}

// "one given = both": a missing direction copies the other.

Prefix parse_prefix(const std::string& text, const std::string& file, const std::string& path) {
  Prefix p;
  p.text = text;
  const auto slash = text.find('/');
  const std::string addr = text.substr(0, slash);
  int max_len = 0;
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, addr.c_str(), &v4) == 1) {
    p.address.bytes[10] = 0xff;
    p.address.bytes[11] = 0xff;
    std::memcpy(&p.address.bytes[12], &v4, 4);
    max_len = 32;
  } else if (inet_pton(AF_INET6, addr.c_str(), &v6) == 1) {
    std::memcpy(p.address.bytes.data(), &v6, 16);
    max_len = 128;
  } else {
    throw InputError(file, path, "\"" + text + "\" is not an IPv4 or IPv6 address or prefix");
  }
  int len = max_len;
  if (slash != std::string::npos) {
    const std::string l = text.substr(slash + 1);
    if (l.empty() || l.size() > 3 || !std::all_of(l.begin(), l.end(), ::isdigit) || std::stoi(l) > max_len) {
      throw InputError(file, path, "\"" + text + "\": prefix length must be 0.." + std::to_string(max_len));
    }
    len = std::stoi(l);
  }
  p.length = static_cast<std::uint8_t>(max_len == 32 ? 96 + len : len);
  return p;
}

bool prefix_contains(const Prefix& p, const IpAddress& a) {
  const int full = p.length / 8;
  for (int i = 0; i < full; ++i) {
    if (p.address.bytes[i] != a.bytes[i]) {
      return false;
    }
  }
  const int rem = p.length % 8;
  if (rem == 0) {
    return true;
  }
  const auto mask = static_cast<std::uint8_t>(0xff << (8 - rem));
  return (p.address.bytes[full] & mask) == (a.bytes[full] & mask);
}

}  // namespace gw
