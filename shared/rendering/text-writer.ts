// The text part's writer: lines of text built word by word, with the list markers, blank lines and
// link labels of html-text.ts's format, and a way back to an earlier point (a hidden element's
// start) or to rewrite since one (a link's content, as its label). Each word costs a constant; a
// link's label is rewritten once, when the link ends.
/** Whitespace as a reader sees it: one space. `&nbsp;` too (spacer cells and padding). */
export const isCollapsible = (c: number) => c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 0xa0;
/** Indentation stops growing here, so deeply nested lists cannot make the text quadratic. */
const maxIndent = 12;
const spaces = Array.from({ length: maxIndent + 1 }, (_, width) => ' '.repeat(width));
const bullets = spaces.map((indent) => `${indent}- `);

interface List {
  ordered: boolean;
  next: number;
  /** Columns of indentation, at most `maxIndent`. */
  indent: number;
  /** The current item's marker (`- `, `3. `), whose width continuation lines are indented by. */
  marker: string;
  /** The list this one is nested in. */
  parent: List | undefined;
}

/** The writer's state at one point, to come back to: a link's start, a hidden element's start. */
export interface Mark {
  parts: number;
  breaks: number;
  space: boolean;
  lineOpen: boolean;
  bullet: string | undefined;
  list: List | undefined;
  next: number;
  marker: string;
}

/** Lines of text built word by word; breaks and spaces are owed until the next word, so none trail. */
export class TextWriter {
  private readonly parts: string[] = [];
  /** Newlines owed before the next word: 1 ends the line, 2 leaves a blank line. */
  private breaks = 0;
  private space = false;
  private lineOpen = false;
  /** The marker of an item whose first word is still to come. */
  private bullet: string | undefined;
  /** The innermost open list. */
  private list: List | undefined;

  word(word: string): void {
    let lead = '';
    if (this.breaks > 0) {
      if (this.parts.length > 0) lead = this.breaks === 1 ? '\n' : '\n\n';
      this.breaks = 0;
      this.lineOpen = false;
    }
    if (!this.lineOpen) {
      if (this.list || this.bullet !== undefined) lead += this.linePrefix();
      this.lineOpen = true;
    } else if (this.space) lead = ' ';
    this.space = false;
    // One part per word, its lead joined to it: marks count parts.
    this.parts.push(lead === '' ? word : lead + word);
  }

  /** Text as a browser lays it out: each run of whitespace one space. */
  text(text: string): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      if (isCollapsible(text.charCodeAt(i))) {
        this.softSpace();
        while (++i < n && isCollapsible(text.charCodeAt(i)));
        continue;
      }
      const start = i;
      while (++i < n && !isCollapsible(text.charCodeAt(i)));
      this.word(start === 0 && i === n ? text : text.slice(start, i));
    }
  }

  preformatted(text: string): void {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (i > 0) this.lineBreak();
      const line = lines[i]!.trimEnd();
      if (line !== '') this.word(line);
    }
  }

  softSpace(): void {
    if (this.lineOpen && this.breaks === 0) this.space = true;
  }

  lineBreak(): void {
    if (this.parts.length === 0) return;
    this.breaks = Math.min(this.breaks + 1, 2);
    this.space = false;
  }

  block(blank: boolean): void {
    if (this.parts.length === 0) return;
    const wanted = blank && this.list === undefined ? 2 : 1;
    if (this.breaks < wanted) this.breaks = wanted;
    this.space = false;
  }

  openList(ordered: boolean, start: number): void {
    this.block(true);
    const parent = this.list;
    const indent = parent ? Math.min(parent.indent + parent.marker.length, maxIndent) : 0;
    this.list = { ordered, next: start, indent, marker: '', parent };
  }

  closeList(): void {
    if (!this.list) return;
    this.list = this.list.parent;
    this.bullet = undefined;
    this.block(true);
  }

  item(): void {
    this.block(false);
    const list = this.list;
    const marker = list?.ordered ? `${list.next++}. ` : '- ';
    if (list) list.marker = marker;
    this.bullet = marker;
  }

  private linePrefix(): string {
    const list = this.list;
    const indent = list?.indent ?? 0;
    const bullet = this.bullet;
    this.bullet = undefined;
    if (bullet === '- ') return bullets[indent]!;
    if (bullet !== undefined) return `${spaces[indent]}${bullet}`;
    return list ? spaces[Math.min(indent + list.marker.length, maxIndent)]! : '';
  }

  mark(): Mark {
    const { list } = this;
    return {
      parts: this.parts.length,
      breaks: this.breaks,
      space: this.space,
      lineOpen: this.lineOpen,
      bullet: this.bullet,
      list,
      next: list?.next ?? 0,
      marker: list?.marker ?? '',
    };
  }

  /** Forgets everything written since `mark`. */
  rewind(mark: Mark): void {
    if (this.parts.length !== mark.parts) this.parts.length = mark.parts;
    ({ breaks: this.breaks, space: this.space, lineOpen: this.lineOpen, bullet: this.bullet, list: this.list } = mark);
    if (mark.list) {
      mark.list.next = mark.next;
      mark.list.marker = mark.marker;
    }
  }

  /** Rewrites what was written since `mark` (a link's content) as `label (href)`. */
  link(mark: Mark, href: string): void {
    const trailingBreaks = this.breaks;
    const trailingSpace = this.space;
    const written = this.parts.length === mark.parts ? '' : this.parts.slice(mark.parts).join('');
    this.rewind(mark);
    const label = labelWords(written);
    if (isCollapsible(written.charCodeAt(0))) this.softSpace();
    if (href === '' || href.startsWith('#')) this.words(label);
    else if (label.length === 0 || isText(label, href)) this.word(href);
    else {
      this.words(label);
      this.softSpace();
      this.word(`(${href})`);
    }
    if (trailingBreaks > 0) this.breaks = Math.max(this.breaks, trailingBreaks);
    else if (trailingSpace) this.softSpace();
  }

  /** Words one space apart. */
  private words(words: readonly string[]): void {
    for (let i = 0; i < words.length; i++) {
      if (i > 0) this.softSpace();
      this.word(words[i]!);
    }
  }

  toString(): string {
    return this.parts.join('');
  }
}

/** Whitespace as `\s` in a regular expression (and `trim()`) knows it: a link's label is split at any. */
const isAnySpace = (c: number) =>
  c === 32 || (c >= 9 && c <= 13) || (c >= 0xa0 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff));

/** A link's label: the words of what its content wrote, split at any whitespace. */
function labelWords(written: string): string[] {
  const words: string[] = [];
  const n = written.length;
  for (let i = 0; i < n; ) {
    if (isAnySpace(written.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (++i < n && !isAnySpace(written.charCodeAt(i)));
    words.push(start === 0 && i === n ? written : written.slice(start, i));
  }
  return words;
}

/** Whether `words`, one space apart, read `text`. */
function isText(words: readonly string[], text: string): boolean {
  let length = words.length - 1;
  for (const word of words) length += word.length;
  return length === text.length && words.join(' ') === text;
}
