#include "catalog/report/size_format.h"

#include <cctype>

namespace fathom::catalog::report {
namespace {

using u128 = unsigned __int128;

constexpr char kUnitLetters[] = "KMGTPEZY";  // powers 1..8
constexpr int kMaxExponent = 8;

// The power of the unit letter `c` (K: 1, M: 2, ...), 0 when it is not one.
int UnitPower(char c) {
  char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (int i = 0; i < kMaxExponent; ++i) {
    if (kUnitLetters[i] == upper) return i + 1;
  }
  return 0;
}

Status BadSpec(std::string_view spec) {
  return Status::Error("invalid block size '" + std::string(spec) +
                       "': give a number with an optional unit (1, 4K, 1KB, 1M, 1MiB) or a "
                       "unit alone (K, MB)");
}

}  // namespace

SizeFormat HumanReadable() {
  SizeFormat f;
  f.block_size = 1;
  f.autoscale = true;
  f.unit_suffix = true;
  return f;
}

SizeFormat BlockSize(uint64_t bytes) {
  SizeFormat f;
  f.block_size = bytes;
  return f;
}

Result<SizeFormat> ParseBlockSize(std::string_view spec) {
  if (spec == "human-readable") return HumanReadable();
  if (spec == "si") {
    SizeFormat f = HumanReadable();
    f.base_1024 = false;
    return f;
  }
  size_t digits = 0;
  while (digits < spec.size() && std::isdigit(static_cast<unsigned char>(spec[digits]))) ++digits;
  u128 number = 1;
  if (digits > 0) {
    number = 0;
    for (size_t i = 0; i < digits; ++i) {
      number = number * 10 + static_cast<unsigned>(spec[i] - '0');
      if (number > UINT64_MAX) return BadSpec(spec);
    }
  }
  std::string_view unit = spec.substr(digits);
  SizeFormat f;
  u128 multiplier = 1;
  if (!unit.empty()) {
    int power = UnitPower(unit[0]);
    std::string_view rest = unit.substr(1);
    if (power == 0) return BadSpec(spec);
    if (rest == "B") {
      f.base_1024 = false;
      f.unit_b = true;
    } else if (rest == "iB") {
      f.unit_b = true;
    } else if (!rest.empty()) {
      return BadSpec(spec);
    }
    for (int i = 0; i < power; ++i) {
      multiplier *= f.base_1024 ? 1024 : 1000;
      if (multiplier > UINT64_MAX) return BadSpec(spec);
    }
    f.unit_suffix = digits == 0;
  } else if (digits == 0) {
    return BadSpec(spec);
  }
  if (!f.unit_suffix) {
    f.unit_b = false;
    f.base_1024 = true;
  }
  u128 bytes = number * multiplier;
  if (bytes == 0 || bytes > UINT64_MAX) return BadSpec(spec);
  f.block_size = static_cast<uint64_t>(bytes);
  return f;
}

std::string FormatAmount(uint64_t amount, const SizeFormat& format) {
  // The amount in blocks: a whole part, tenths, and what is left below a tenth (0: nothing,
  // 1: less than half a tenth, 2: exactly half, 3: more), rounded up at the end.
  uint64_t whole = amount;
  unsigned tenths = 0;
  unsigned rest = 0;
  const uint64_t divisor = format.block_size;
  if (divisor > 1) {
    u128 r10 = static_cast<u128>(amount % divisor) * 10;
    u128 r2 = (r10 % divisor) * 2;
    whole = amount / divisor;
    tenths = static_cast<unsigned>(r10 / divisor);
    rest = r2 < divisor ? (r2 > 0 ? 1 : 0) : (r2 == divisor ? 2 : 3);
  }
  const unsigned base = format.base_1024 ? 1024 : 1000;
  int exponent = -1;
  std::string decimal;
  if (format.autoscale) {
    exponent = 0;
    if (whole >= base) {
      do {
        unsigned r10 = static_cast<unsigned>(whole % base) * 10 + tenths;
        unsigned r2 = (r10 % base) * 2 + (rest >> 1);
        whole /= base;
        tenths = r10 / base;
        rest = r2 < base ? ((r2 + rest) != 0 ? 1 : 0) : (2 + (base < r2 + rest ? 1 : 0));
        ++exponent;
      } while (whole >= base && exponent < kMaxExponent);
      if (whole < 10) {
        if (rest > 0) {
          ++tenths;
          rest = 0;
          if (tenths == 10) {
            ++whole;
            tenths = 0;
          }
        }
        if (whole < 10) {
          decimal = "." + std::to_string(tenths);
          tenths = 0;
          rest = 0;
        }
      }
    }
  }
  if (tenths + rest > 0) {
    ++whole;
    if (format.autoscale && whole == base && exponent < kMaxExponent) {
      ++exponent;
      decimal = ".0";
      whole = 1;
    }
  }
  std::string out = std::to_string(whole) + decimal;
  if (format.unit_suffix) {
    if (exponent < 0) {
      exponent = 0;
      for (u128 power = 1; power < format.block_size; power *= base) {
        if (++exponent == kMaxExponent) break;
      }
    }
    if (exponent > 0) {
      out += (!format.base_1024 && exponent == 1) ? 'k' : kUnitLetters[exponent - 1];
    }
    if (format.unit_b) {
      if (format.base_1024 && exponent > 0) out += 'i';
      out += 'B';
    }
  }
  return out;
}

}  // namespace fathom::catalog::report
