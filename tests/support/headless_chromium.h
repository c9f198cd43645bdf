// headless_chromium.h: one headless Chromium that renders many pages, driven
// over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
// messages ending in a NUL, read from its fd 3, written to its fd 4).
// Chromium's start-up (about 2.5 CPU-s) is most of what rendering a page
// costs, so a test binary starts it once and renders each page in a new tab:
// the DOM as --dump-dom prints it (the doctype and the root's outerHTML)
// after the load event, and a PNG of the viewport as --screenshot takes it.
#ifndef PERFCOUNTERS_TESTS_SUPPORT_HEADLESS_CHROMIUM_H_
#define PERFCOUNTERS_TESTS_SUPPORT_HEADLESS_CHROMIUM_H_

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace perfcounters::testing {

class HeadlessChromium {
 public:
  struct Page {
    std::string dom;
    std::string png;  // the PNG file's bytes
    // What Render()'s `evaluate` expression returned (a string), if given.
    std::string evaluated;
  };

  // Starts `chromium` (from PATH) with `flags`, its stderr to `log`.
  static absl::StatusOr<std::unique_ptr<HeadlessChromium>> Start(
      const std::vector<std::string>& flags, const std::string& log) {
    // Sockets, not pipes: a write to a browser that died is an error
    // (MSG_NOSIGNAL), not a SIGPIPE that ends the test binary.
    int to[2], from[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, to) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, from) != 0) {
      return absl::InternalError(absl::StrCat("socketpair: ", errno));
    }
    std::vector<std::string> args = {"chromium", "--remote-debugging-pipe"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const pid_t pid = fork();
    if (pid < 0) return absl::InternalError("fork failed");
    if (pid == 0) {
      // Above 4 first, so that dup2 onto 3 and 4 clobbers neither.
      const int in = fcntl(to[1], F_DUPFD, 10);
      const int out = fcntl(from[1], F_DUPFD, 10);
      const int err = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int null = open("/dev/null", O_RDWR);
      if (in < 0 || out < 0 || err < 0 || null < 0 || dup2(null, 0) < 0 ||
          dup2(err, 1) < 0 || dup2(err, 2) < 0 || dup2(in, 3) < 0 ||
          dup2(out, 4) < 0) {
        _exit(126);
      }
      execvp("chromium", argv.data());
      _exit(127);
    }
    close(to[1]);
    close(from[1]);
    return std::unique_ptr<HeadlessChromium>(
        new HeadlessChromium(pid, to[0], from[0]));
  }

  // Closes the browser and waits for it (killed if it does not go).
  ~HeadlessChromium() {
    if (pid_ > 0) {
      (void)Call("Browser.close", nlohmann::json::object(), "", 10);
    }
    // 10 s for it to end, in 0.1 s steps.
    for (int i = 0; pid_ > 0 && waitpid(pid_, nullptr, WNOHANG) == 0; ++i) {
      if (i == 100) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
        break;
      }
      const timespec tick = {0, 100'000'000};
      nanosleep(&tick, nullptr);
    }
    close(to_);
    close(from_);
  }

  // Renders `url` in a new tab with a `width` x `height` viewport; with
  // `evaluate`, also that JavaScript expression's value (a string: the
  // layout the browser gave the page, JSON.stringify'd) after the load.
  absl::StatusOr<Page> Render(const std::string& url, int width, int height,
                              const std::string& evaluate = "") {
    auto target = Call("Target.createTarget", {{"url", "about:blank"}});
    if (!target.ok()) return target.status();
    const std::string id = (*target)["targetId"];
    auto attached =
        Call("Target.attachToTarget", {{"targetId", id}, {"flatten", true}});
    if (!attached.ok()) return attached.status();
    const std::string session = (*attached)["sessionId"];
    Page page;
    absl::Status s = RenderIn(session, url, width, height, &page);
    if (s.ok() && !evaluate.empty()) {
      auto value =
          Call("Runtime.evaluate",
               {{"expression", evaluate}, {"returnByValue", true}}, session);
      if (value.ok()) {
        page.evaluated = (*value)["result"].value("value", "");
      } else {
        s = value.status();
      }
    }
    auto closed = Call("Target.closeTarget", {{"targetId", id}});
    if (s.ok() && !closed.ok()) s = closed.status();
    if (!s.ok()) return s;
    return page;
  }

 private:
  HeadlessChromium(pid_t pid, int to, int from)
      : pid_(pid), to_(to), from_(from) {}

  absl::Status RenderIn(const std::string& session, const std::string& url,
                        int width, int height, Page* page) {
    for (const auto& [method, params] :
         std::vector<std::pair<std::string, nlohmann::json>>{
             {"Page.enable", nlohmann::json::object()},
             {"Emulation.setDeviceMetricsOverride",
              {{"width", width},
               {"height", height},
               {"deviceScaleFactor", 1},
               {"mobile", false}}},
             {"Page.navigate", {{"url", url}}}}) {
      auto r = Call(method, params, session);
      if (!r.ok()) return r.status();
      if (r->contains("errorText")) {
        return absl::InternalError(absl::StrCat(url, ": ", r->dump()));
      }
    }
    absl::Status loaded = WaitFor("Page.loadEventFired", session);
    if (!loaded.ok()) return loaded;
    auto dom = Call("Runtime.evaluate",
                    {{"expression",
                      "(document.doctype ? new XMLSerializer()"
                      ".serializeToString(document.doctype) + '\\n' : '') + "
                      "document.documentElement.outerHTML"},
                     {"returnByValue", true}},
                    session);
    if (!dom.ok()) return dom.status();
    page->dom = (*dom)["result"].value("value", "");
    auto shot = Call("Page.captureScreenshot", {{"format", "png"}}, session);
    if (!shot.ok()) return shot.status();
    if (!absl::Base64Unescape((*shot)["data"].get<std::string>(), &page->png)) {
      return absl::InternalError("the screenshot is not base64");
    }
    return absl::OkStatus();
  }

  // Sends a command and returns its result (the events that come first are
  // kept for WaitFor()).
  absl::StatusOr<nlohmann::json> Call(const std::string& method,
                                      const nlohmann::json& params,
                                      const std::string& session = "",
                                      int timeout_s = 120) {
    nlohmann::json m = {
        {"id", ++last_id_}, {"method", method}, {"params", params}};
    if (!session.empty()) m["sessionId"] = session;
    std::string text = m.dump();
    text.push_back('\0');
    for (size_t at = 0; at < text.size();) {
      const ssize_t n =
          send(to_, text.data() + at, text.size() - at, MSG_NOSIGNAL);
      if (n <= 0) return WentAway();
      at += static_cast<size_t>(n);
    }
    for (;;) {
      auto reply = Next(timeout_s);
      if (!reply.ok()) return reply.status();
      if (reply->value("id", 0) != last_id_) {
        events_.push_back(*std::move(reply));
        continue;
      }
      if (reply->contains("error")) {
        return absl::InternalError(absl::StrCat(method, ": ", reply->dump()));
      }
      return (*reply)["result"];
    }
  }

  absl::Status WaitFor(const std::string& event, const std::string& session) {
    for (size_t i = 0;; ++i) {
      if (i == events_.size()) {
        auto next = Next(120);
        if (!next.ok()) return next.status();
        events_.push_back(*std::move(next));
      }
      if (events_[i].value("method", "") == event &&
          events_[i].value("sessionId", "") == session) {
        events_.clear();
        return absl::OkStatus();
      }
    }
  }

  // The next message, waiting at most `timeout_s`.
  absl::StatusOr<nlohmann::json> Next(int timeout_s) {
    for (;;) {
      const size_t end = buffer_.find('\0');
      if (end != std::string::npos) {
        nlohmann::json m =
            nlohmann::json::parse(buffer_.substr(0, end), nullptr, false);
        buffer_.erase(0, end + 1);
        if (m.is_discarded()) return absl::InternalError("bad message");
        return m;
      }
      pollfd p = {from_, POLLIN, 0};
      if (poll(&p, 1, timeout_s * 1000) != 1) {
        return absl::DeadlineExceededError(
            absl::StrCat("chromium said nothing for ", timeout_s, " s"));
      }
      char chunk[65536];
      const ssize_t n = read(from_, chunk, sizeof chunk);
      if (n <= 0) return WentAway();
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

  // The browser closed its end: how it ended (127: not in PATH).
  absl::Status WentAway() {
    int status = 0;
    if (pid_ > 0 && waitpid(pid_, &status, 0) == pid_) {
      pid_ = -1;
      return absl::UnavailableError(absl::StrCat(
          "chromium went away: ",
          WIFEXITED(status) ? absl::StrCat("exit status ", WEXITSTATUS(status))
                            : absl::StrCat("signal ", WTERMSIG(status)),
          WIFEXITED(status) && WEXITSTATUS(status) == 127 ? " (not in PATH)"
                                                          : ""));
    }
    return absl::UnavailableError("chromium went away");
  }

  pid_t pid_;
  int to_, from_;
  int last_id_ = 0;
  std::string buffer_;
  std::vector<nlohmann::json> events_;
};

}  // namespace perfcounters::testing

#endif  // PERFCOUNTERS_TESTS_SUPPORT_HEADLESS_CHROMIUM_H_
