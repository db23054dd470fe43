// tessera_diff: reads cases (tests/differential/case.hpp's language), one per line, from the
// file named by argv[1] (or stdin), evaluates each with Tessera and writes one result line per
// case to stdout (or argv[2]). diff_numpy.py generates the cases and compares with NumPy.
#include <fstream>
#include <iostream>

#include "case.hpp"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::ifstream fin;
  std::ofstream fout;
  if (argc > 1) {
    fin.open(argv[1]);
    if (!fin) {
      std::cerr << "tessera_diff: cannot read " << argv[1] << "\n";
      return 2;
    }
  }
  if (argc > 2) fout.open(argv[2]);
  std::istream& in = argc > 1 ? static_cast<std::istream&>(fin) : std::cin;
  std::ostream& out = argc > 2 ? static_cast<std::ostream&>(fout) : std::cout;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto sp = line.find(' ');
    const std::string id = line.substr(0, sp);
    out << tdiff::format_result(id, tdiff::evaluate_line(line)) << '\n';
  }
  out.flush();
  return out ? 0 : 2;
}
