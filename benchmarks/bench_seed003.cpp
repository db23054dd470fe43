// Seed 003 ("speed cubing for ML", episode 3) as a benchmark binary.
//
//   x = normal(10, 1, size=(n, n), chunks=(c, c))
//   (a)  (x + 1)[::2, ::2].mean()
//   (b)  (x + 1).mean()
//   (c)  (x + 1).mean() on x persisted in memory (generation out of the picture; the persist
//        step is reported as its own row, "c:persist")
//   (d)  (x + 1).mean() with x = ts::full((n, n), 10.0): no random numbers, the cost of the
//        fused elementwise + reduction kernel and of the scheduling alone
//
// Prints a markdown table (and --json FILE writes the same rows plus machine information).
// elements/s = elements that enter the mean (the size of the reduced array) / best seconds:
// ceil(n/2)^2 for (a), n^2 for (b), (c), (d); n^2 generated for c:persist.
// Peak RSS is ts::peak_resident_mib() (getrusage's ru_maxrss): a process-lifetime peak, so (c)
// always runs last.
//
// --progress shows a progress bar per computation on stderr; --trace FILE writes each
// computation's Chrome trace to FILE (each one replaces the last: the file holds the last run)
// and its one-line summary on stderr.
//
// Backends: `host` (ts::host, --threads workers). `cuda` and `auto` are accepted names: a build
// of this file by nvcc with <tessera/cuda.hpp> available gains the CUDA rows; this (host
// compiler) build fails clearly for `cuda` and falls back to the host for `auto`.
#include <tessera/core/process_memory.hpp>
#include <tessera/tessera.hpp>

#if __has_include(<tessera/random.hpp>)
#include <tessera/random.hpp>
#define SEED003_HAVE_RANDOM 1
#else
#define SEED003_HAVE_RANDOM 0
#endif
#if __has_include(<tessera/view.hpp>)
#include <tessera/view.hpp>
#define SEED003_HAVE_VIEW 1
#else
#define SEED003_HAVE_VIEW 0
#endif
#if __has_include(<tessera/reduce.hpp>)
#include <tessera/reduce.hpp>
#define SEED003_HAVE_REDUCE 1
#else
#define SEED003_HAVE_REDUCE 0
#endif
#if defined(__CUDACC__) && __has_include(<tessera/cuda.hpp>)
#include <tessera/cuda.hpp>
#define SEED003_HAVE_CUDA 1
#else
#define SEED003_HAVE_CUDA 0
#endif

#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "observe_cli.hpp"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace ts = tessera;

namespace {

// ---------------------------------------------------------------- machine and process facts

/// User + system CPU seconds of this process so far (all threads).
double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

double physical_ram_bytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto p = line.find(':');
      if (p != std::string::npos) {
        auto s = line.substr(p + 1);
        s.erase(0, s.find_first_not_of(" \t"));
        return s;
      }
    }
  }
  return "unknown";
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\', o += ch;
    else if (ch == '\n') o += "\\n";
    else if (static_cast<unsigned char>(ch) < 0x20) o += ' ';
    else o += ch;
  }
  return o;
}

std::string json_num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// ---------------------------------------------------------------- rows

struct row {
  std::string variant, backend;
  int workers = 0;
  ts::index_t n = 0, chunk = 0;
  double best = NAN, median = NAN;
  double cpu = NAN;     // CPU seconds (all threads) of the fastest run
  double elements = 0;  // elements entering the mean (or generated, for c:persist)
  std::optional<double> result;
  double rss_mib = 0;
  std::string note;  // a skip reason, or empty
  int repeat = 0;
};

std::string fmt_seconds(double s) {
  char buf[32];
  if (!std::isfinite(s)) return "-";
  if (s < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else if (s < 1.0) std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

std::string fmt_rate(double r) {
  char buf[32];
  if (!std::isfinite(r) || r <= 0) return "-";
  std::snprintf(buf, sizeof buf, "%.3g", r);
  return buf;
}

void print_table(const std::vector<row>& rows, std::ostream& os) {
  os << "| variant | backend | workers | N | chunk | best | median | CPU (best run) | elements/s "
        "| result | peak RSS MiB |\n";
  os << "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : rows) {
    os << "| " << r.variant << " | " << r.backend << " | " << r.workers << " | " << r.n << " | "
       << r.chunk << " | ";
    if (!r.note.empty()) {
      os << "skipped: " << r.note << " | | | | | |\n";
      continue;
    }
    char res[48] = "-";
    if (r.result) std::snprintf(res, sizeof res, "%.10f", *r.result);
    char rss[32];
    std::snprintf(rss, sizeof rss, "%.0f", r.rss_mib);
    os << fmt_seconds(r.best) << " | " << fmt_seconds(r.median) << " | " << fmt_seconds(r.cpu)
       << " | " << fmt_rate(r.elements / r.best) << " | " << res << " | " << rss << " |\n";
  }
}

void write_json(const std::string& path, const std::vector<row>& rows, std::uint64_t seed) {
  std::ofstream os(path);
  if (!os) throw std::runtime_error("cannot write JSON to '" + path + "'");
  os << "{\n  \"benchmark\": \"seed003\",\n  \"tool\": \"tessera\",\n";
  os << "  \"machine\": {\"nproc\": " << std::thread::hardware_concurrency()
     << ", \"tbb_concurrency\": " << ts::host{}.concurrency() << ", \"cpu_model\": \""
     << json_escape(cpu_model()) << "\", \"ram_bytes\": " << json_num(physical_ram_bytes())
     << ", \"date\": \"" << utc_now() << "\", \"compiler\": \"" << json_escape(__VERSION__)
     << "\"},\n";
  os << "  \"seed\": " << seed << ",\n";
  os << "  \"elements_convention\": \"elements entering the mean (size of the reduced array): "
        "ceil(n/2)^2 for a, n^2 for b, c, d; n^2 generated for c:persist\",\n";
  os << "  \"rows\": [\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    os << "    {\"tool\": \"tessera\", \"variant\": \"" << r.variant << "\", \"backend\": \""
       << r.backend << "\", \"workers\": " << r.workers << ", \"n\": " << r.n
       << ", \"chunk\": " << r.chunk << ", \"repeat\": " << r.repeat;
    if (!r.note.empty()) {
      os << ", \"skipped\": \"" << json_escape(r.note) << "\"}";
    } else {
      os << ", \"seconds_best\": " << json_num(r.best)
         << ", \"seconds_median\": " << json_num(r.median)
         << ", \"cpu_seconds\": " << json_num(r.cpu)
         << ", \"elements\": " << json_num(r.elements)
         << ", \"elements_per_s\": " << json_num(r.elements / r.best)
         << ", \"result\": " << (r.result ? json_num(*r.result) : "null")
         << ", \"peak_rss_mib\": " << json_num(r.rss_mib) << "}";
    }
    os << (i + 1 < rows.size() ? ",\n" : "\n");
  }
  os << "  ]\n}\n";
}

// ---------------------------------------------------------------- timing

struct timing {
  double best = NAN, median = NAN, cpu = NAN;
  double value = NAN;
};

/// Runs f() `repeat` times; f returns the computed mean.
[[maybe_unused]] timing time_it(int repeat, const std::function<double()>& f) {
  std::vector<double> t;
  timing out;
  for (int i = 0; i < repeat; ++i) {
    const double c0 = cpu_seconds();
    auto t0 = std::chrono::steady_clock::now();
    double v = f();
    auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpu_seconds();
    t.push_back(std::chrono::duration<double>(t1 - t0).count());
    if (t.back() <= *std::min_element(t.begin(), t.end())) out.cpu = c1 - c0;
    out.value = v;
  }
  std::sort(t.begin(), t.end());
  out.best = t.front();
  std::size_t m = t.size();
  out.median = m % 2 ? t[m / 2] : 0.5 * (t[m / 2 - 1] + t[m / 2]);
  return out;
}

// ---------------------------------------------------------------- the workload

struct config {
  ts::index_t n = 20000, chunk = 2000;
  std::uint64_t seed = 42;
  int repeat = 3;
  double max_mem_fraction = 0.5;
  double device_bytes = 0;   // cuda rows: bytes x may take on the devices; (c) is skipped beyond
  bool verbose = true;
};

/// What a variant needs that this build may lack (empty when it can run).
std::string missing_for(char v) {
  std::string miss;
  auto need = [&](bool have, const char* h) {
    if (!have) miss += (miss.empty() ? "" : ", ") + std::string(h);
  };
  if (v != 'd') need(SEED003_HAVE_RANDOM, "<tessera/random.hpp>");
  if (v == 'a') need(SEED003_HAVE_VIEW, "<tessera/view.hpp>");
  need(SEED003_HAVE_REDUCE, "<tessera/reduce.hpp>");
  return miss.empty() ? "" : "this build lacks " + miss;
}

#if SEED003_HAVE_RANDOM
auto make_x(const config& c) {
  auto g = ts::random::default_rng(c.seed);
  return g.normal<double>(10.0, 1.0, ts::shape_t{c.n, c.n}, {c.chunk, c.chunk});
}
#endif

/// Runs the requested variants (in the order a, b, d, c) for one policy; appends rows.
template <class P>
void run_policy([[maybe_unused]] const P& pol, const std::string& backend, int workers, const config& c,
                const std::string& variants, std::vector<row>& rows) {
  const double n2 = double(c.n) * double(c.n);
  [[maybe_unused]] const double half = double((c.n + 1) / 2);
  auto base = [&](const std::string& v) {
    row r;
    r.variant = v;
    r.backend = backend;
    r.workers = workers;
    r.n = c.n;
    r.chunk = c.chunk;
    r.repeat = c.repeat;
    return r;
  };
  [[maybe_unused]] auto finish = [&](row r, const timing& t, double elements) {
    r.best = t.best;
    r.median = t.median;
    r.cpu = t.cpu;
    r.elements = elements;
    if (std::isfinite(t.value)) r.result = t.value;
    r.rss_mib = ts::peak_resident_mib();
    if (c.verbose) {
      std::fprintf(stderr, "  %-9s %-5s workers=%d N=%lld chunk=%lld best %s\n", r.variant.c_str(),
                   backend.c_str(), workers, (long long)c.n, (long long)c.chunk,
                   fmt_seconds(r.best).c_str());
    }
    rows.push_back(std::move(r));
  };
  auto skip = [&](const std::string& v, const std::string& why) {
    row r = base(v);
    r.note = why;
    if (c.verbose) std::fprintf(stderr, "  %-9s skipped: %s\n", v.c_str(), why.c_str());
    rows.push_back(std::move(r));
  };
  [[maybe_unused]] auto mean_of = [&](const auto& e) -> double {
#if SEED003_HAVE_REDUCE
    return double(ts::item(ts::mean(e), pol));
#else
    (void)e;
    return NAN;
#endif
  };

  // Fixed order, (c) last: ru_maxrss is a process-lifetime peak.
  for (char v : std::string("abdc")) {
    if (variants.find(v) == std::string::npos) continue;
    const std::string name(1, v);
    if (auto miss = missing_for(v); !miss.empty()) {
      skip(name, miss);
      continue;
    }
    if (v == 'a') {
#if SEED003_HAVE_RANDOM && SEED003_HAVE_VIEW && SEED003_HAVE_REDUCE
      using namespace ts::placeholders;
      auto t = time_it(c.repeat, [&] {
        auto x = make_x(c);
        return mean_of(ts::view(x + 1, ts::range(_, _, 2), ts::range(_, _, 2)));
      });
      finish(base(name), t, half * half);
#endif
    } else if (v == 'b') {
#if SEED003_HAVE_RANDOM && SEED003_HAVE_REDUCE
      auto t = time_it(c.repeat, [&] {
        auto x = make_x(c);
        return mean_of(x + 1);
      });
      finish(base(name), t, n2);
#endif
    } else if (v == 'd') {
#if SEED003_HAVE_REDUCE
      auto t = time_it(c.repeat, [&] {
        auto x = ts::full<double>(ts::shape_t{c.n, c.n}, 10.0, {c.chunk, c.chunk});
        return mean_of(x + 1);
      });
      finish(base(name), t, n2);
#endif
    } else if (v == 'c') {
      const double need = n2 * sizeof(double), ram = physical_ram_bytes();
      const bool on_device = c.device_bytes > 0;
      if (on_device ? need > c.device_bytes : ram > 0 && need > c.max_mem_fraction * ram) {
        char why[160];
        if (on_device)
          std::snprintf(why, sizeof why, "x needs %.1f GB on the device, more than its memory_limit "
                        "of %.1f GB", need / 1e9, c.device_bytes / 1e9);
        else
          std::snprintf(why, sizeof why, "x needs %.1f GB in memory, more than %.0f%% of %.1f GB RAM",
                        need / 1e9, c.max_mem_fraction * 100, ram / 1e9);
        skip("c", why);
        skip("c:persist", why);
        continue;
      }
#if SEED003_HAVE_RANDOM && SEED003_HAVE_REDUCE
      std::optional<decltype(ts::persist(make_x(c), pol))> kept;  // host or device chunks
      // Persist once per repeat (the array is dropped before the next one is made) so the
      // persist row also reports best/median; the last one is kept for variant (c).
      auto tp = time_it(c.repeat, [&] {
        kept.reset();
        kept = ts::persist(make_x(c), pol);
        return NAN;
      });
      finish(base("c:persist"), tp, n2);
      auto t = time_it(c.repeat, [&] { return mean_of(*kept + 1); });
      finish(base(name), t, n2);
#endif
    }
  }
}

std::vector<int> parse_int_list(const std::string& s, const char* what) {
  std::vector<int> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    try {
      std::size_t pos = 0;
      int v = std::stoi(item, &pos);
      if (pos != item.size() || v < 0) throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw CLI::ValidationError(std::string("--") + what,
                                 "expected non-negative integers separated by commas, got '" +
                                     item + "'");
    }
  }
  if (out.empty()) throw CLI::ValidationError(std::string("--") + what, "empty list");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Seed 003 benchmark: x = normal(10, 1, (N, N), chunks (chunk, chunk));\n"
      "  (a) (x + 1)[::2, ::2].mean()  (b) (x + 1).mean()  (c) (b) on a persisted x\n"
      "  (d) (b) with x = full(10.0) (no random numbers)"};
  config c;
  std::string backends = "host", threads = "0", variants = "a,b,c", json, streams = "2";
  double memory_limit = 0.9;
  bool quiet = false;
  observe_cli observe;
  app.add_option("--n", c.n, "array is N x N")->check(CLI::PositiveNumber);
  app.add_option("--chunk", c.chunk, "chunks are chunk x chunk")->check(CLI::PositiveNumber);
  app.add_option("--backend", backends,
                 "host, cuda or auto (comma list allowed); cuda needs a CUDA build");
  app.add_option("--threads", threads,
                 "host worker threads (cuda: devices), 0 = all; a comma list (e.g. 1,2) gives "
                 "one row each");
  app.add_option("--repeat", c.repeat, "timed runs per row (best and median reported)")
      ->check(CLI::PositiveNumber);
  app.add_option("--variant", variants, "comma list of a, b, c, d (or 'all')");
  app.add_option("--seed", c.seed, "random seed");
  app.add_option("--json", json, "also write the rows and machine information to this file");
  app.add_option("--max-mem-fraction", c.max_mem_fraction,
                 "skip (c) when x would need more than this fraction of physical RAM")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--streams", streams,
                 "cuda rows: streams_per_device (chunk tasks in flight per device); a comma list "
                 "gives one row each, labelled cuda:sN");
  app.add_option("--memory-limit", memory_limit,
                 "cuda rows: memory_limit as a fraction of each device's memory ((c) persists x "
                 "under it)")
      ->check(CLI::Range(0.01, 1.0));
  app.add_flag("--quiet", quiet, "no progress lines on stderr");
  observe.add_to(app);
  CLI11_PARSE(app, argc, argv);
  c.verbose = !quiet;

  try {
    std::vector<int> thread_list = parse_int_list(threads, "threads");
    std::vector<int> stream_list = parse_int_list(streams, "streams");
    for (int s : stream_list)
      if (s < 1) throw CLI::ValidationError("--streams", "streams_per_device must be >= 1, got " +
                                                         std::to_string(s));
    if (variants == "all") variants = "a,b,c,d";
    for (char ch : variants)
      if (ch != ',' && std::string("abcd").find(ch) == std::string::npos)
        throw CLI::ValidationError("--variant", std::string("unknown variant '") + ch +
                                                    "' (expected a, b, c, d)");
    std::vector<std::string> backend_list;
    {
      std::stringstream ss(backends);
      std::string b;
      while (std::getline(ss, b, ','))
        if (!b.empty()) backend_list.push_back(b);
    }
    if (c.chunk > c.n) c.chunk = c.n;

    // Resolve and validate every backend name before anything runs.
    std::vector<std::string> resolved;
    for (const auto& b : backend_list) {
      if (b == "host") {
        resolved.push_back("host");
      } else if (b == "auto") {
#if SEED003_HAVE_CUDA
        if (ts::cuda::available()) {
          resolved.push_back("cuda");
        } else {
          std::fprintf(stderr, "notice: --backend auto: no usable CUDA device (%s); using host\n",
                       ts::cuda::unavailable_reason().c_str());
          resolved.push_back("host");
        }
#else
        std::fprintf(stderr, "notice: --backend auto: this build has no CUDA backend; using host\n");
        resolved.push_back("host");
#endif
      } else if (b == "cuda") {
#if SEED003_HAVE_CUDA
        if (!ts::cuda::available()) {
          std::fprintf(stderr, "error: --backend cuda: no usable CUDA device: %s\n",
                       ts::cuda::unavailable_reason().c_str());
          return 2;
        }
        resolved.push_back("cuda");
#else
        std::fprintf(stderr,
                     "error: --backend cuda: this binary was built without the CUDA backend "
                     "(it is compiled by the host compiler; CUDA rows need this source built by "
                     "nvcc with <tessera/cuda.hpp>)\n");
        return 2;
#endif
      } else {
        std::fprintf(stderr, "error: --backend '%s' is not one of host, cuda, auto\n", b.c_str());
        return 2;
      }
    }

    // Rows in the order variant (a, b, d, then c: it holds x in memory and ru_maxrss is a
    // process-lifetime peak), then backend, then worker count.
    std::vector<row> rows;
    for (char v : std::string("abdc")) {
      if (variants.find(v) == std::string::npos) continue;
      const std::string one(1, v);
      for (const auto& use : resolved) {
        if (use == "host") {
          for (int t : thread_list) {
            ts::host pol{.threads = t, .progress = observe.progress, .trace = observe.trace};
            run_policy(pol, "host", pol.concurrency(), c, one, rows);
          }
        }
#if SEED003_HAVE_CUDA
        if (use == "cuda") {
          // --threads on the CUDA backend: the number of devices (0 = every visible device).
          const int visible = ts::detail::cuda_backend::devices().visible;
          for (int t : thread_list) {
            for (int s : stream_list) {
              ts::cuda pol{.streams_per_device = s, .memory_limit = memory_limit,
                           .progress = observe.progress, .trace = observe.trace};
              const int k = t == 0 ? visible : std::min(t, visible);
              double dev_bytes = 0;
              for (int d = 0; d < k; ++d) {
                pol.devices.push_back(d);
                dev_bytes += memory_limit * double(ts::detail::cuda_backend::devices().devices[std::size_t(d)].total);
              }
              config cc = c;
              cc.device_bytes = dev_bytes;
              const std::string label = stream_list.size() > 1 ? "cuda:s" + std::to_string(s) : "cuda";
              run_policy(pol, label, k, cc, one, rows);
            }
          }
        }
#endif
      }
    }

    std::cout << "seed003: x = normal(10, 1, (" << c.n << ", " << c.n << "), chunks (" << c.chunk
              << ", " << c.chunk << ")), seed " << c.seed << ", best of " << c.repeat << "; "
              << std::thread::hardware_concurrency() << " CPUs (" << cpu_model() << ")\n";
    print_table(rows, std::cout);
    std::cout << "elements/s: elements entering the mean / best time (a: ceil(N/2)^2; b, c, d: "
                 "N^2); c:persist: N^2 generated. peak RSS: process-lifetime ru_maxrss.\n";
    if (!json.empty()) write_json(json, rows, c.seed);
  } catch (const CLI::Error& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
