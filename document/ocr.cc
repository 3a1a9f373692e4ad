#include "document/ocr.h"

#include <leptonica/allheaders.h>
#include <tesseract/baseapi.h>
#include <tesseract/ocrclass.h>
#include <tesseract/resultiterator.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <map>
#include <memory>

#include "common/config.h"
#include "document/ocr_image.h"
#include "document/text_layout.h"

namespace mineru::document {
namespace {

// OSD's confidence in an orientation below which the page is left as it is: a wrong quarter turn costs
// the whole page, a missed one only a rotated scan.
constexpr float kMinOrientationConfidence = 2.0f;
// A paragraph of one or two lines this much taller than the page's median line is a heading.
constexpr double kHeadingRatio = 1.3;
constexpr double kFirstLevelRatio = 1.8;
constexpr size_t kMaxHeadingBytes = 200;

// Traineddata files opened by PreopenOcrData: base name -> fd. Written once, before any engine loads
// (single-threaded then); read-only afterwards.
std::map<std::string, int>& Preopened() {
  static auto* files = new std::map<std::string, int>();
  return *files;
}

// Tesseract's recognizer opens OpenMP teams of four threads for each small step of its networks. Beside
// other work, or on a machine with few cores, the threads spin waiting for each other: a dense page took
// 4.5x the time and 7x the CPU of one thread (2 cores). A daemon reads pages of several documents at
// once, so each page is read on the thread that asks. OpenMP's max-active-levels of 0 makes every team
// started from the calling thread a team of one; the setting belongs to the thread, not the process
// (libgomp's data environment, as OMP_THREAD_LIMIT=1 would be for the whole process, which model code
// sharing it must not get). The symbol is looked up in the OpenMP runtime Tesseract was built against;
// a Tesseract built without OpenMP has none and needs nothing.
void OneThreadPerPage() {
  using SetLevels = void (*)(int);
  static const auto set_levels =
      reinterpret_cast<SetLevels>(::dlsym(RTLD_DEFAULT, "omp_set_max_active_levels"));
  if (set_levels != nullptr) set_levels(0);
}

std::string BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Tesseract's FileReader over the preopened fds.
bool ReadPreopened(const char* filename, std::vector<char>* data) {
  auto it = Preopened().find(BaseName(filename));
  if (it == Preopened().end()) return false;
  struct stat st {};
  if (::fstat(it->second, &st) != 0 || st.st_size <= 0) return false;
  data->resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (done < data->size()) {
    const ssize_t n = ::pread(it->second, data->data() + done, data->size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string g_probed_path;
bool RecordPath(const char* filename, std::vector<char>* /*data*/) {
  g_probed_path = filename;
  return false;
}

// Where Tesseract looks for "<lang>.traineddata" (TESSDATA_PREFIX or its built-in folder): asked of
// Tesseract itself, whose failed load of a file it was never given is silenced.
std::string TessdataFolder(const std::string& first_language) {
  g_probed_path.clear();
  const int saved = ::dup(2);
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (saved >= 0 && null >= 0) ::dup2(null, 2);
  {
    tesseract::TessBaseAPI probe;
    (void)probe.Init(nullptr, 0, first_language.c_str(), tesseract::OEM_LSTM_ONLY, nullptr, 0, nullptr,
                     nullptr, false, &RecordPath);
  }
  if (saved >= 0) {
    ::dup2(saved, 2);
    ::close(saved);
  }
  if (null >= 0) ::close(null);
  const size_t slash = g_probed_path.rfind('/');
  return slash == std::string::npos ? std::string() : g_probed_path.substr(0, slash + 1);
}

// Tesseract engines of one thread: recognition for one language list, and orientation detection.
struct Engines {
  std::string languages;
  std::unique_ptr<tesseract::TessBaseAPI> ocr;
  std::unique_ptr<tesseract::TessBaseAPI> osd;  // null when the osd data is missing
};

std::unique_ptr<tesseract::TessBaseAPI> NewEngine(const char* languages, tesseract::OcrEngineMode mode) {
  auto api = std::make_unique<tesseract::TessBaseAPI>();
  // Tesseract writes its diagnostics to debug_file; a daemon has no terminal for them.
  std::vector<std::string> names = {"debug_file"};
  std::vector<std::string> values = {"/dev/null"};
  const int rc = Preopened().empty() ? api->Init(nullptr, languages, mode, nullptr, 0, &names, &values, false)
                                     : api->Init(nullptr, 0, languages, mode, nullptr, 0, &names, &values,
                                                 false, &ReadPreopened);
  if (rc != 0) return nullptr;
  return api;
}

Result<Engines*> EnginesFor(const std::string& languages) {
  thread_local Engines engines;
  if (engines.ocr && engines.languages == languages) return &engines;
  engines = Engines{};
  engines.ocr = NewEngine(languages.c_str(), tesseract::OEM_LSTM_ONLY);
  if (!engines.ocr) {
    return Status(StatusCode::kFailedPrecondition,
                  "Tesseract could not load the OCR languages '" + languages +
                      "' (install their traineddata, e.g. the Debian packages tesseract-ocr-eng and "
                      "tesseract-ocr-chi-sim)");
  }
  engines.osd = NewEngine("osd", tesseract::OEM_TESSERACT_ONLY);
  engines.languages = languages;
  return &engines;
}

}  // namespace

Result<std::vector<int>> PreopenOcrData(const std::string& languages) {
  MINERU_RETURN_IF_ERROR(CheckOcrLanguages(languages));
  std::vector<std::string> names;
  for (size_t start = 0; start <= languages.size();) {
    size_t end = languages.find('+', start);
    if (end == std::string::npos) end = languages.size();
    names.push_back(languages.substr(start, end - start));
    start = end + 1;
  }
  names.push_back("osd");
  const std::string folder = TessdataFolder(names.front());
  if (folder.empty()) return FailedPrecondition("cannot find Tesseract's data folder");
  std::vector<int> fds;
  for (const std::string& name : names) {
    const std::string file = name + ".traineddata";
    if (Preopened().count(file)) continue;
    const int fd = ::open((folder + file).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    Preopened()[file] = fd;
    fds.push_back(fd);
  }
  return fds;
}

namespace {

// Clockwise rotation of the page's content (0, 90, 180, 270), 0 when OSD is unsure or unavailable.
int DetectRotation(tesseract::TessBaseAPI* osd, Pix* pix) {
  if (osd == nullptr) return 0;
  osd->SetPageSegMode(tesseract::PSM_OSD_ONLY);
  osd->SetImage(pix);
  int deg = 0;
  float confidence = 0, script_confidence = 0;
  const char* script = nullptr;
  bool found = osd->DetectOrientationScript(&deg, &confidence, &script, &script_confidence);
  osd->Clear();
  if (!found || confidence < kMinOrientationConfidence) return 0;
  return ((deg % 360) + 360) % 360 / 90 * 90;
}

// Polls the caller's stop check from Tesseract's recognition loop.
struct StopCheck {
  const std::function<Status()>* stop = nullptr;
  Status status;
  static bool Cancel(void* self, int /*words*/) {
    auto* s = static_cast<StopCheck*>(self);
    if (s->stop == nullptr || !*s->stop) return false;
    if (s->status.ok()) s->status = (*s->stop)();
    return !s->status.ok();
  }
};

std::string TakeText(char* text) {
  std::string s = text == nullptr ? "" : text;
  delete[] text;
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

char32_t FirstRune(const std::string& s) {
  size_t i = 0;
  return s.empty() ? 0 : DecodeUtf8(s, i);
}

struct OcrLine {
  std::string text;
  BBox box;
  float row_height = 0;
};

struct OcrParagraph {
  std::vector<OcrLine> lines;
  BBox box;
};

// Blocks in Tesseract's reading order: its image regions as image blocks, each paragraph of its text
// regions as a text block (a title when it is one or two lines set much taller than the page's lines).
class BlockCollector {
 public:
  explicit BlockCollector(const OcrFrame& frame) : frame_(frame) {}

  void Collect(tesseract::ResultIterator& it) {
    it.Begin();
    do {
      tesseract::PolyBlockType type = it.BlockType();
      if (it.IsAtBeginningOf(tesseract::RIL_BLOCK) && PTIsImageType(type)) {
        FlushParagraph();
        Block image;
        image.type = BlockType::kImage;
        image.bbox = Box(it, tesseract::RIL_BLOCK);
        order_.push_back({std::move(image), {}});
        continue;
      }
      if (!PTIsTextType(type) || it.Empty(tesseract::RIL_WORD)) continue;
      if (it.IsAtBeginningOf(tesseract::RIL_PARA)) FlushParagraph();
      if (it.IsAtBeginningOf(tesseract::RIL_TEXTLINE) || paragraph_.lines.empty()) {
        OcrLine line;
        line.box = Box(it, tesseract::RIL_TEXTLINE);
        float descenders = 0, ascenders = 0;
        it.RowAttributes(&line.row_height, &descenders, &ascenders);
        paragraph_.lines.push_back(std::move(line));
      }
      AppendWord(paragraph_.lines.back().text, TakeText(it.GetUTF8Text(tesseract::RIL_WORD)));
    } while (it.Next(tesseract::RIL_WORD));
    FlushParagraph();
  }

  std::vector<Block> Finish() {
    std::vector<float> heights;
    for (const auto& [block, para] : order_) {
      for (const OcrLine& l : para.lines) heights.push_back(l.row_height);
    }
    float median = 0;
    if (!heights.empty()) {
      std::nth_element(heights.begin(), heights.begin() + heights.size() / 2, heights.end());
      median = heights[heights.size() / 2];
    }
    std::vector<Block> blocks;
    for (auto& [block, para] : order_) {
      if (block.type == BlockType::kImage) {
        block.ocr = true;
        if (!block.bbox.empty()) blocks.push_back(std::move(block));
        continue;
      }
      Block b = ParagraphBlock(para, median);
      if (!b.content.empty()) blocks.push_back(std::move(b));
    }
    return blocks;
  }

 private:
  BBox Box(const tesseract::ResultIterator& it, tesseract::PageIteratorLevel level) const {
    int l = 0, t = 0, r = 0, b = 0;
    if (!it.BoundingBox(level, &l, &t, &r, &b)) return {};
    return frame_.ToRenderFrame(l, t, r, b);
  }

  static void AppendWord(std::string& line, const std::string& word) {
    if (word.empty()) return;
    if (!line.empty() && !(IsCjkChar(LastRune(line)) && IsCjkChar(FirstRune(word)))) line.push_back(' ');
    line += word;
  }

  void FlushParagraph() {
    if (paragraph_.lines.empty()) return;
    order_.push_back({Block{}, std::move(paragraph_)});
    paragraph_ = {};
  }

  static Block ParagraphBlock(const OcrParagraph& para, float median_height) {
    Block b;
    b.ocr = true;
    float height = 0;
    bool first = true;
    for (const OcrLine& l : para.lines) {
      JoinLine(b.content, l.text);
      height += l.row_height;
      b.bbox = first ? l.box
                     : BBox{std::min(b.bbox.x0, l.box.x0), std::min(b.bbox.y0, l.box.y0),
                            std::max(b.bbox.x1, l.box.x1), std::max(b.bbox.y1, l.box.y1)};
      first = false;
    }
    height /= static_cast<float>(para.lines.size());
    if (median_height > 0 && para.lines.size() <= 2 && b.content.size() <= kMaxHeadingBytes &&
        height >= kHeadingRatio * median_height) {
      b.type = BlockType::kTitle;
      b.title_level = height >= kFirstLevelRatio * median_height ? 1 : 2;
    }
    return b;
  }

  const OcrFrame& frame_;
  OcrParagraph paragraph_;
  std::vector<std::pair<Block, OcrParagraph>> order_;
};

// A scan fills its page; a figure inside a page's margins does not (a letter page's type area is 63 % of
// it), nor does a photo beside text.
constexpr double kPictureCover = 0.85;

// Whether a line stays out of the page's middle (the middle half of its width by the middle half of its
// height), where a page's own text runs: a stamp along an edge, a page number, a line up the margin.
bool InMargins(const Rect& line, const Rect& page) {
  const Rect middle{page.x0 + page.width() / 4, page.y0 + page.height() / 4, page.x1 - page.width() / 4,
                    page.y1 - page.height() / 4};
  return line.Intersect(middle).empty();
}

bool MarginsOverPicture(const PageContent& content) {
  const Rect& page = content.page;
  if (content.images.empty() || page.empty()) return false;
  if (!std::all_of(content.lines.begin(), content.lines.end(),
                   [&](const TextLine& l) { return InMargins(l.box, page); })) {
    return false;
  }
  return CoveredArea(content.images, page) >= kPictureCover * page.area();
}

bool IsGarbageChar(char32_t c) { return c == 0xFFFD || (c >= 0xE000 && c <= 0xF8FF) || c >= 0xF0000; }

}  // namespace

TextLayerUse JudgeTextLayer(const PageContent& content) {
  if (content.num_chars == 0) return TextLayerUse::kEmpty;
  int garbage = 0, total = 0;
  for (const TextLine& line : content.lines) {
    for (const TextChar& c : line.chars) {
      if (c.rune == ' ') continue;
      ++total;
      if (IsGarbageChar(c.rune)) ++garbage;
    }
  }
  if (total == 0) return TextLayerUse::kEmpty;
  if (garbage * 4 >= total) return TextLayerUse::kGarbage;
  return MarginsOverPicture(content) ? TextLayerUse::kMarginsOverPicture : TextLayerUse::kUsable;
}

bool OcrHoldsMore(const std::vector<Block>& blocks, int layer_chars) {
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  size_t read = 0;
  for (const Block& b : blocks) {
    read +=
        Utf8Length(b.content) - static_cast<size_t>(std::count_if(b.content.begin(), b.content.end(), space));
  }
  return read >= static_cast<size_t>(layer_chars + layer_chars / 2 + 50);
}

Result<OcrPage> RecognizePage(const RgbImage& render, const OcrOptions& options,
                              const std::function<Status()>& stop) {
  MINERU_RETURN_IF_ERROR(CheckOcrLanguages(options.languages));
  if (render.empty()) return InvalidArgument("OCR of an empty image");
  MINERU_ASSIGN_OR_RETURN(Engines * engines, EnginesFor(options.languages));
  OneThreadPerPage();
  int dpi = static_cast<int>(options.dpi + 0.5);
  PixPtr pix = GreyPix(render, dpi);
  if (!pix) return ResourceExhausted("no memory for the OCR image");

  OcrPage page;
  OcrFrame frame{render.width, render.height, 0, 0};
  page.rotation_deg = DetectRotation(engines->osd.get(), pix.get());
  // Content turned clockwise by `rotation_deg` is upright after the remaining quarter turns.
  frame.quads = (4 - page.rotation_deg / 90) % 4;
  pix = RotateQuads(std::move(pix), frame.quads);
  if (!pix) return ResourceExhausted("no memory to turn the OCR image");
  frame.skew_rad = Deskew(pix);
  page.skew_deg = frame.skew_rad * 180.0 / 3.14159265358979323846;

  tesseract::TessBaseAPI& api = *engines->ocr;
  api.SetPageSegMode(tesseract::PSM_AUTO);
  api.SetImage(pix.get());
  api.SetSourceResolution(dpi);
  StopCheck check{&stop, Status::Ok()};
  tesseract::ETEXT_DESC monitor;
  monitor.cancel = &StopCheck::Cancel;
  monitor.cancel_this = &check;
  if (options.page_time_limit_ms > 0) {
    monitor.set_deadline_msecs(static_cast<int32_t>(std::min<int64_t>(options.page_time_limit_ms, 1 << 30)));
  }
  int rc = api.Recognize(&monitor);
  if (!check.status.ok()) {
    api.Clear();
    return check.status;
  }
  if (rc != 0) {
    page.timed_out = monitor.deadline_exceeded();
    page.warnings.push_back(page.timed_out ? "OCR stopped at the per-page time limit of " +
                                                 std::to_string(options.page_time_limit_ms) +
                                                 " ms; the words read so far are kept"
                                           : "Tesseract failed to recognise the page");
  }
  std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator());
  if (it) {
    BlockCollector collector(frame);
    collector.Collect(*it);
    page.blocks = collector.Finish();
  }
  api.Clear();
  return page;
}

}  // namespace mineru::document
