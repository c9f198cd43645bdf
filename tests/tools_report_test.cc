// tools_report_test.cc: `perfcounters report` — golden HTML, and the page
// rendered in headless Chromium: the screenshot shows the bars (the runs'
// colours cover many pixels) and the DOM holds the expected series.
#include <png.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/tool_runner.h"

namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using perfcounters::tools::testing::Quote;
using perfcounters::tools::testing::Slurp;

const std::string& kData = perfcounters::tools::testing::kTestdata;

int Shell(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PERFCOUNTERS_REQUIRE_TESTDATA();
    if (dir_ != nullptr) return;
    dir_ = new std::string(
        perfcounters::tools::testing::ScratchPath("report_test"));
    ASSERT_EQ(Shell("rm -rf " + *dir_ + " && mkdir -p " + *dir_), 0);
    const perfcounters::tools::testing::RunResult r =
        perfcounters::tools::testing::RunTool(
            absl::StrCat("report base.json new.json -o ",
                         Quote(*dir_ + "/report.html")),
            kData);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  // Natively Chromium must be there (scripts/deps.sh installs it), so a
  // missing browser fails. Inside the emulated arm64 machine
  // (PERFCOUNTERS_REQUIRE_HW=1) there is no browser; the native run of this
  // test renders the report.
  static bool NoBrowserHere() {
    const char* vm = std::getenv("PERFCOUNTERS_REQUIRE_HW");
    return vm != nullptr && std::string(vm) == "1" &&
           Shell("command -v chromium >/dev/null 2>&1") != 0;
  }
  // Runs headless Chromium on the report with `flags`; returns stdout.
  static std::string Chromium(const std::string& flags) {
    const std::string profile = *dir_ + "/profile";
    Shell("rm -rf " + profile);
    const std::string out = *dir_ + "/chromium.out";
    const int code = Shell(absl::StrCat(
        "timeout 120 chromium --headless --no-sandbox --disable-gpu "
        "--disable-quic --no-first-run --disable-background-networking "
        "--disable-component-update --disable-sync --user-data-dir=",
        profile, " ", flags, " file://", *dir_, "/report.html >", out, " 2>",
        *dir_, "/chromium.err"));
    EXPECT_EQ(code, 0) << "chromium failed (scripts/deps.sh installs it): "
                       << Slurp(*dir_ + "/chromium.err");
    return Slurp(out);
  }
  static std::string* dir_;
};
std::string* ReportTest::dir_ = nullptr;

TEST_F(ReportTest, GoldenAndSelfContained) {
  const std::string html = Slurp(*dir_ + "/report.html");
  perfcounters::tools::testing::ExpectGolden(html, "report.html");
  EXPECT_THAT(html, Not(HasSubstr("http:")));
  EXPECT_THAT(html, Not(HasSubstr("https:")));
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, Not(HasSubstr("<link")));
}

TEST_F(ReportTest, DomHasTheSeries) {
  if (NoBrowserHere()) {
    GTEST_SKIP() << "no Chromium in the emulated arm64 machine; the native run "
                    "renders the report";
  }
  const std::string dom = Chromium("--dump-dom");
  ASSERT_THAT(dom, HasSubstr("<svg class=\"chart\" data-metric=\"IPC\""));
  for (const char* run : {"base.json", "new.json"}) {
    EXPECT_THAT(dom, HasSubstr(absl::StrCat("<g class=\"series\" data-run=\"",
                                            run, "\"")));
  }
  // IPC of BM_sort/1024: 6000/3000 in base, 6060/3300 in new.
  EXPECT_THAT(dom, HasSubstr("data-run=\"base.json\" "
                             "data-benchmark=\"BM_sort/1024\" "
                             "data-metric=\"IPC\" data-value=\"2\""));
  EXPECT_THAT(dom, HasSubstr(absl::StrCat(
                       "data-run=\"new.json\" data-benchmark=\"BM_sort/1024\" "
                       "data-metric=\"IPC\" data-value=\"",
                       absl::StrFormat("%.17g", 6060.0 / 3300.0), "\"")));
  // cycles were not counted for BM_copy in base: a label, not a bar.
  EXPECT_THAT(dom, HasSubstr("data-benchmark=\"BM_copy\" x=\"")) << dom;
  EXPECT_THAT(dom, HasSubstr(">not counted</text>"));
  EXPECT_THAT(dom, Not(HasSubstr("data-run=\"base.json\" "
                                 "data-benchmark=\"BM_copy\" "
                                 "data-metric=\"cycles\"")));
}

TEST_F(ReportTest, ScreenshotShowsTheBars) {
  if (NoBrowserHere()) {
    GTEST_SKIP() << "no Chromium in the emulated arm64 machine; the native run "
                    "renders the report";
  }
  const std::string png = *dir_ + "/shot.png";
  std::remove(png.c_str());
  Chromium(absl::StrCat("--window-size=1000,1400 --screenshot=", png));
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  ASSERT_TRUE(png_image_begin_read_from_file(&image, png.c_str()))
      << "no screenshot: " << image.message;
  image.format = PNG_FORMAT_RGB;
  std::vector<unsigned char> pixels(PNG_IMAGE_SIZE(image));
  ASSERT_TRUE(
      png_image_finish_read(&image, nullptr, pixels.data(), 0, nullptr));
  ASSERT_EQ(image.width, 1000u);
  std::map<std::string, size_t> colours;
  size_t not_white = 0;
  for (size_t i = 0; i + 2 < pixels.size(); i += 3) {
    const int r = pixels[i], g = pixels[i + 1], b = pixels[i + 2];
    if (r < 250 || g < 250 || b < 250) ++not_white;
    colours[absl::StrFormat("#%02X%02X%02X", r, g, b)]++;
  }
  const size_t total = pixels.size() / 3;
  EXPECT_GT(not_white, total / 20) << "the page looks blank";
  // The first two runs' colours (Okabe-Ito blue and orange) fill the bars:
  // a bar is 12 px high and hundreds wide, several are on screen.
  EXPECT_GT(colours["#0072B2"], 10000u);
  EXPECT_GT(colours["#E69F00"], 10000u);
}

}  // namespace
