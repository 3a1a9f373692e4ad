#include "document/accents.h"

#include <string_view>

namespace mineru::document {
namespace {

// Each spacing accent with the Latin letters it composes with and the letters it makes, in order
// (Unicode's canonical compositions).
struct Composition {
  char32_t accent;
  std::u32string_view letters;
  std::u32string_view composed;
};

constexpr Composition kCompositions[] = {
    {U'`', U"aeinouwyAEINOUWY", U"àèìǹòùẁỳÀÈÌǸÒÙẀỲ"},
    {U'\u00A8', U"aehiotuwxyAEHIOUWXY", U"äëḧïöẗüẅẍÿÄËḦÏÖÜẄẌŸ"},
    {U'\u00AF', U"aegiouyAEGIOUY", U"āēḡīōūȳĀĒḠĪŌŪȲ"},
    {U'\u02C9', U"aegiouyAEGIOUY", U"āēḡīōūȳĀĒḠĪŌŪȲ"},
    {U'\u00B4', U"acegiklmnoprsuwyzACEGIKLMNOPRSUWYZ", U"áćéǵíḱĺḿńóṕŕśúẃýźÁĆÉǴÍḰĹḾŃÓṔŔŚÚẂÝŹ"},
    {U'\u00B8', U"cdeghklnrstCDEGHKLNRST", U"çḑȩģḩķļņŗşţÇḐȨĢḨĶĻŅŖŞŢ"},
    {U'\u02C6', U"aceghijosuwyzACEGHIJOSUWYZ", U"âĉêĝĥîĵôŝûŵŷẑÂĈÊĜĤÎĴÔŜÛŴŶẐ"},
    {U'\u02C7', U"acdeghijklnorstuzACDEGHIKLNORSTUZ", U"ǎčďěǧȟǐǰǩľňǒřšťǔžǍČĎĚǦȞǏǨĽŇǑŘŠŤǓŽ"},
    {U'\u02D8', U"aegiouAEGIOU", U"ăĕğĭŏŭĂĔĞĬŎŬ"},
    {U'\u02D9', U"abcdefghmnoprstwxyzABCDEFGHIMNOPRSTWXYZ", U"ȧḃċḋėḟġḣṁṅȯṗṙṡṫẇẋẏżȦḂĊḊĖḞĠḢİṀṄȮṖṘṠṪẆẊẎŻ"},
    {U'\u02DA', U"auwyAU", U"åůẘẙÅŮ"},
    {U'\u02DB', U"aeiouAEIOU", U"ąęįǫųĄĘĮǪŲ"},
    {U'\u02DC', U"aeinouvyAEINOUVY", U"ãẽĩñõũṽỹÃẼĨÑÕŨṼỸ"},
    {U'\u02DD', U"ouOU", U"őűŐŰ"},
    // A letter in a circle drawn round it (TeX's \copyright and \textregistered in the original
    // encoding: "c" and a large circle, which the text layer gives as a combining enclosing circle).
    {U'\u20DD', U"cCrR", U"©©®®"},
};

}  // namespace

bool IsSpacingAccent(char32_t c) {
  for (const Composition& k : kCompositions) {
    if (k.accent == c) return true;
  }
  return false;
}

char32_t ComposeAccent(char32_t letter, char32_t accent) {
  if (letter == U'\u0131') letter = U'i';  // dotless i, which TeX sets under an accent
  if (letter == U'\u0237') letter = U'j';  // dotless j
  for (const Composition& k : kCompositions) {
    if (k.accent != accent) continue;
    const size_t at = k.letters.find(letter);
    return at == std::u32string_view::npos ? 0 : k.composed[at];
  }
  return 0;
}

}  // namespace mineru::document
