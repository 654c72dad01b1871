// lctl_output.h — `lctl get_param NAME...` output cut back into its parameters: a value of
// one line comes as "NAME=VALUE", a longer one as "NAME=" then its lines. Pure; any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fathom::io {

struct LctlParam {
  std::string name;    // "obdfilter.testfs-OST0001.job_stats"
  std::string target;  // what lies between the first and the last dot: "testfs-OST0001", or
                       // "testfs-OST0001.exports.10.0.0.7@tcp" ("" for a one-part name)
  std::string leaf;    // "job_stats" (the last dotted part)
  std::string value;
};

std::vector<LctlParam> SplitLctlOutput(std::string_view text);

}  // namespace fathom::io
