// Progress of a computation on stderr: chunks done / total, percentage, rate and ETA.
//
//   ts::compute(x, ts::host{.progress = true});    // this call (ts::cuda{.progress = true} too)
//   {
//     ts::progress_bar bar;                         // as Dask's `with ProgressBar():`
//     ts::compute(x);                               // every computation started from this
//     ts::persist(y);                               // thread while `bar` is alive
//   }
//
// One bar per top-level call (compute, persist, item, store / to_zarr / to_npy) covering all of
// its stages (a reduction's fold tasks and the final chunks are one bar); the drivers draw it
// through exec/observe.hpp. On a terminal the bar is redrawn in place ('\r', at most 10 times a
// second); otherwise (stderr is a file or a pipe) a plain line is printed every 10% of the tasks
// (at most one a second, and at least every 5 seconds while tasks complete) and a final line:
//
//   [########------------]  42% | 42/100 chunks | 27.9 chunks/s | ETA 2.1s
//   [####################] 100% | 100/100 chunks | 28.3 chunks/s | 3.5s
// (the last field of the closing line is the call's wall time; a terminal line is cut to the
// terminal's width so that '\r' redraws it in place).
#pragma once
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "../config.hpp"

namespace tessera {

namespace detail {
/// progress_bar objects alive in this thread.
inline int& progress_bars_alive() {
  thread_local int n = 0;
  return n;
}
}  // namespace detail

/// While a progress_bar is alive, computations started from the thread that made it show
/// progress on stderr as if their policy had `.progress = true` (other threads are unaffected;
/// bars nest). Not copyable or movable: it marks a scope.
class progress_bar {
 public:
  progress_bar() { ++detail::progress_bars_alive(); }
  ~progress_bar() { --detail::progress_bars_alive(); }
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;
};

namespace detail {

/// Seconds as the bar shows them: "0.4s", "12.3s", "4m05s", "2h07m".
inline std::string progress_duration(double s) {
  char buf[32];
  if (!std::isfinite(s) || s < 0) return "--";
  if (s >= 100 * 3600.0) return ">99h";
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", int(s / 60), int(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", int(s / 3600), int(s / 60) % 60);
  return buf;
}

/// A tasks-per-second rate: three significant digits below 100 ("27.9", "0.412"), whole
/// numbers above ("412", "12345").
inline std::string progress_rate(double r) {
  char buf[32];
  if (!std::isfinite(r) || r <= 0) return "--";
  std::snprintf(buf, sizeof buf, r < 100 ? "%.3g" : "%.0f", r);
  return buf;
}

/// The text of the bar (no '\r' or newline): `done` of `total` chunk tasks after `elapsed`
/// seconds; `final` gives the closing form (the wall time instead of the ETA), `failed` the
/// form of a computation that stopped on an exception.
inline std::string progress_text(index_t done, index_t total, double elapsed, bool final = false,
                                 bool failed = false) {
  constexpr int width = 20;
  const double frac = total > 0 ? std::clamp(double(done) / double(total), 0.0, 1.0) : 1.0;
  const int filled = int(frac * width);
  std::string s = "[";
  s.append(std::size_t(filled), '#');
  s.append(std::size_t(width - filled), '-');
  char pct[16];
  std::snprintf(pct, sizeof pct, "] %3d%% | ", int(frac * 100));
  s += pct;
  s += std::to_string(done) + "/" + std::to_string(total) + " chunks | ";
  if (failed) return s + "failed after " + progress_duration(elapsed);
  const double rate = elapsed > 0 ? double(done) / elapsed : 0.0;
  s += progress_rate(rate) + " chunks/s | ";
  if (final) return s + progress_duration(elapsed);
  s += "ETA ";
  s += done > 0 && rate > 0 ? progress_duration(double(total - done) / rate) : std::string("--");
  return s;
}

/// Draws one computation's bar on a stream (stderr): redrawn in place on a terminal, plain
/// lines otherwise. Not thread-safe: the observer calls it under its lock.
class progress_printer {
 public:
  explicit progress_printer(std::FILE* out = stderr)
      : out_(out), tty_(::isatty(::fileno(out)) == 1) {
    winsize w{};
    if (tty_ && ::ioctl(::fileno(out), TIOCGWINSZ, &w) == 0 && w.ws_col > 1) columns_ = w.ws_col;
  }
  progress_printer(std::FILE* out, bool tty) : out_(out), tty_(tty) {}

  bool tty() const { return tty_; }

  /// After a task completes: redraws when due (terminal: 0.1 s since the last draw; plain: a
  /// new 10% step and 1 s since the last line, or 5 s since it).
  void update(index_t done, index_t total, double elapsed) {
    if (tty_) {
      if (elapsed - last_ < 0.1 && drawn_) return;
      draw(progress_text(done, total, elapsed), false);
    } else {
      const int step = total > 0 ? int(10 * std::min(done, total) / total) : 10;
      const bool due = (step > step_ && elapsed - last_ >= 1.0) || elapsed - last_ >= 5.0;
      if (!due || done >= total) return;  // the final line says 100%
      step_ = step;
      draw(progress_text(done, total, elapsed), true);
    }
    last_ = elapsed;
  }

  /// The closing line (always printed).
  void finish(index_t done, index_t total, double elapsed, bool failed) {
    draw(progress_text(done, total, elapsed, true, failed), true);
  }

 private:
  void draw(std::string text, bool newline) {
    if (tty_) {
      // A wrapped line could not be redrawn with '\r': cut at the terminal's width. Pad over a
      // longer previous text (the rate and ETA change width).
      if (text.size() >= columns_) text.resize(columns_ - 1);
      std::string line = "\r" + text;
      if (text.size() < width_) line.append(width_ - text.size(), ' ');
      width_ = text.size();
      if (newline) line += '\n';
      std::fputs(line.c_str(), out_);
    } else {
      std::fputs((text + "\n").c_str(), out_);
    }
    std::fflush(out_);
    drawn_ = true;
  }

  std::FILE* out_;
  bool tty_;
  bool drawn_ = false;
  double last_ = 0;       // elapsed seconds at the last draw
  int step_ = 0;          // plain lines: the last 10% step printed
  std::size_t width_ = 0; // terminal: length of the last text drawn
  std::size_t columns_ = 80;  // terminal: its width
};

}  // namespace detail
}  // namespace tessera
