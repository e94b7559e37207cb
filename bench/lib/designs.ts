// The designs the capacity benches send: a newsletter of a chosen size, personalised at the top.

/** A newsletter design of about `bytes` bytes, personalised at the top. */
export function largeDesign(bytes: number): string {
  const paragraph = '<p style="margin:0 0 12px 0;font-family:Arial,sans-serif;color:#333">Spring brings new arrivals to the shop, and readers like you get them first.</p>\n';
  return `<!DOCTYPE html><html><head><title>News</title></head><body><p>Dear ((full_name)),</p>\n${paragraph.repeat(Math.ceil(bytes / paragraph.length))}</body></html>`;
}
