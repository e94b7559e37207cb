// Character references in HTML text: the named ones mail editors and tenants write, and numeric
// ones as browsers read them. Decoding is one pass over the text, with no backtracking.

/**
 * Named character references: HTML 4.01's 252 (Latin-1, symbols and Greek, specials; with their
 * HTML5 values), `apos`, the upper-case aliases HTML5 keeps (`AMP`, `COPY`...), the ASCII
 * punctuation names (`&commat;`...) and a few HTML5 symbols seen in mail (`&check;`, `&starf;`...).
 * That covers what mail editors and tenants write; HTML5's other ~1,900 names (mostly mathematics)
 * stay as written. Node has no table of its own, and the full one would add some 30 KB to every
 * sending bundle.
 */
const namedReferences: ReadonlyMap<string, string> = (() => {
  const table = new Map<string, string>();
  const run = (first: number, names: string) => names.split(' ').forEach((name, i) => table.set(name, String.fromCodePoint(first + i)));
  // Latin-1, U+00A0 to U+00FF in order.
  run(
    0xa0,
    'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest ' +
      'Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig ' +
      'agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml',
  );
  // Greek, U+0391 to U+03A9 (no capital final sigma at U+03A2) and U+03B1 to U+03C9.
  run(0x391, 'Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho');
  run(0x3a3, 'Sigma Tau Upsilon Phi Chi Psi Omega');
  run(0x3b1, 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigmaf sigma tau upsilon phi chi psi omega');
  const single =
    'quot:22 amp:26 lt:3c gt:3e apos:27 OElig:152 oelig:153 Scaron:160 scaron:161 Yuml:178 fnof:192 circ:2c6 tilde:2dc thetasym:3d1 upsih:3d2 piv:3d6 ' +
    'ensp:2002 emsp:2003 thinsp:2009 zwnj:200c zwj:200d lrm:200e rlm:200f ndash:2013 mdash:2014 lsquo:2018 rsquo:2019 sbquo:201a ldquo:201c rdquo:201d bdquo:201e ' +
    'dagger:2020 Dagger:2021 bull:2022 hellip:2026 permil:2030 prime:2032 Prime:2033 lsaquo:2039 rsaquo:203a oline:203e frasl:2044 euro:20ac ' +
    'image:2111 weierp:2118 real:211c trade:2122 alefsym:2135 larr:2190 uarr:2191 rarr:2192 darr:2193 harr:2194 crarr:21b5 lArr:21d0 uArr:21d1 rArr:21d2 dArr:21d3 hArr:21d4 ' +
    'forall:2200 part:2202 exist:2203 empty:2205 nabla:2207 isin:2208 notin:2209 ni:220b prod:220f sum:2211 minus:2212 lowast:2217 radic:221a prop:221d infin:221e ang:2220 ' +
    'and:2227 or:2228 cap:2229 cup:222a int:222b there4:2234 sim:223c cong:2245 asymp:2248 ne:2260 equiv:2261 le:2264 ge:2265 sub:2282 sup:2283 nsub:2284 sube:2286 supe:2287 ' +
    'oplus:2295 otimes:2297 perp:22a5 sdot:22c5 lceil:2308 rceil:2309 lfloor:230a rfloor:230b lang:27e8 rang:27e9 loz:25ca spades:2660 clubs:2663 hearts:2665 diams:2666 ' +
    'AMP:26 LT:3c GT:3e QUOT:22 COPY:a9 REG:ae bullet:2022 check:2713 cross:2717 star:2606 starf:2605 phone:260e hyphen:2010 dash:2010 ' +
    'Tab:9 NewLine:a excl:21 num:23 dollar:24 percnt:25 lpar:28 rpar:29 ast:2a plus:2b comma:2c period:2e sol:2f colon:3a semi:3b equals:3d quest:3f commat:40 ' +
    'lsqb:5b bsol:5c rsqb:5d Hat:5e lowbar:5f grave:60 lcub:7b verbar:7c vert:7c rcub:7d';
  for (const entry of single.split(' ')) {
    const [name, hex] = entry.split(':') as [string, string];
    table.set(name, String.fromCodePoint(parseInt(hex, 16)));
  }
  return table;
})();

/** What browsers make of `&#128;` to `&#159;`: the Windows-1252 characters (the five unassigned stay). */
const windows1252 = '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function fromCodePoint(code: number): string {
  if (!(code > 0 && code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) return '\ufffd';
  if (code >= 0x80 && code <= 0x9f) return windows1252[code - 0x80]!;
  return String.fromCodePoint(code);
}

/** The longest name in the table: a longer run of letters and digits names nothing here. */
const longestName = Math.max(...[...namedReferences.keys()].map((name) => name.length));
const isDigit = (c: number) => c >= 48 && c <= 57;
const isAlphanumeric = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const hexValue = (c: number) => (isDigit(c) ? c - 48 : c >= 65 && c <= 70 ? c - 55 : c >= 97 && c <= 102 ? c - 87 : -1);
/** Above every code point: a number that grows past it is out of range whatever digits follow. */
const outOfRange = 0x110000;

/**
 * Character references decoded (see the format above); anything else left as written. One pass,
 * each character read once: `&#x` and hex digits, or `&#` and decimal digits, with or without a
 * `;` (as browsers read them); or `&`, a letter, letters and digits, and `;` (a name).
 */
export function decodeEntities(text: string): string {
  let amp = text.indexOf('&');
  if (amp === -1) return text;
  const n = text.length;
  let out = '';
  let copied = 0;
  for (; amp !== -1; amp = text.indexOf('&', amp + 1)) {
    let i = amp + 1;
    let c = text.charCodeAt(i);
    let decoded: string | undefined;
    if (c === 35) {
      c = text.charCodeAt(++i);
      const hex = c === 120 || c === 88;
      if (hex) c = text.charCodeAt(++i);
      const digitsStart = i;
      let code = 0;
      for (let digit = hex ? hexValue(c) : isDigit(c) ? c - 48 : -1; digit !== -1 && i < n; digit = hex ? hexValue(c) : isDigit(c) ? c - 48 : -1) {
        if (code < outOfRange) code = Math.min(code * (hex ? 16 : 10) + digit, outOfRange);
        c = text.charCodeAt(++i);
      }
      if (i === digitsStart) continue;
      if (c === 59) i++;
      decoded = fromCodePoint(code);
    } else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
      while (++i < n && isAlphanumeric(text.charCodeAt(i)));
      if (text.charCodeAt(i) !== 59 || i - amp - 1 > longestName) continue;
      decoded = namedReferences.get(text.slice(amp + 1, i));
      if (decoded === undefined) continue;
      i++;
    } else continue;
    out += text.slice(copied, amp) + decoded;
    copied = i;
    amp = i - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}
