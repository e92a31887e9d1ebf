/* Report a mistake. The links are built in Python (lessonkit.report.links) and the page-level
   one works without JavaScript; this adds a small "report" link to each section heading and,
   when the reader has selected text in the page, carries it into the issue form's "quote". */
(() => {
  const LIMIT = 1500; // lessonkit.report.links.QUOTE_LIMIT: keeps the URL far below ~8 KB
  const LINK = "a[data-lk-report-link]";

  /* Same as lessonkit.report.links.shorten: tidy whitespace, cut with an ellipsis. */
  function shorten(text) {
    const tidy = text
      .trim()
      .split(/\r\n|\r|\n/)
      .map((line) => line.split(/\s+/).filter(Boolean).join(" "))
      .filter(Boolean)
      .join("\n");
    const chars = Array.from(tidy); // code points, as Python counts them
    return chars.length <= LIMIT ? tidy : chars.slice(0, LIMIT - 1).join("").trimEnd() + "…";
  }

  /* The selected text, if the selection lies in the page's article; "" otherwise. */
  function selectedText() {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed || !selection.rangeCount) return "";
    const article = document.querySelector("article") || document.body;
    const node = selection.getRangeAt(0).commonAncestorContainer;
    return article.contains(node) ? shorten(selection.toString()) : "";
  }

  function refresh(link) {
    const url = new URL(link.href);
    const quote = selectedText();
    if (quote) url.searchParams.set("quote", quote);
    else url.searchParams.delete("quote");
    link.href = url.toString();
  }

  // Pointer: read the selection on press, before a click could clear it.
  // Keyboard (click with detail 0): read it on activation.
  document.addEventListener(
    "pointerdown",
    (event) => {
      const link = event.target.closest && event.target.closest(LINK);
      if (link) refresh(link);
    },
    true,
  );
  document.addEventListener(
    "click",
    (event) => {
      const link = event.target.closest && event.target.closest(LINK);
      if (link && event.detail === 0) refresh(link);
    },
    true,
  );

  function headingText(heading) {
    const copy = heading.cloneNode(true);
    copy.querySelectorAll(".headerlink, .lk-report__section").forEach((el) => el.remove());
    return copy.textContent.trim();
  }

  lessonkit.onPage((root) => {
    const report = root.querySelector("[data-lk-report]");
    if (!report) return;
    let sections = {};
    try {
      sections = JSON.parse(report.dataset.lkSections || "{}");
    } catch (error) {
      return;
    }
    for (const [id, href] of Object.entries(sections)) {
      const heading = document.getElementById(id);
      if (!heading || heading.tagName !== "H2" || heading.querySelector(".lk-report__section")) {
        continue;
      }
      const link = document.createElement("a");
      link.className = "lk-report__section";
      link.href = href;
      link.dataset.lkReportLink = "";
      link.textContent = "report";
      const hidden = document.createElement("span");
      hidden.className = "lk-visually-hidden";
      hidden.textContent = ` a mistake in “${headingText(heading)}”`;
      link.append(hidden);
      heading.append(link);
    }
  });
})();
