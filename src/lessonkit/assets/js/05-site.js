/* lessonkit: site-wide accessibility fixes to Material's markup, on every page view.
   - A table too wide for its box scrolls: keyboard users must be able to focus it to scroll it,
     and a screen reader names it (axe: scrollable-region-focusable).
   - Material wraps each code block's copy button in a <nav>: ten unnamed navigation landmarks on
     a page drown the real ones (axe: landmark-unique), so they become plain groups. */
lessonkit.onPage((root) => {
  const fixScrollBoxes = () => {
    for (const box of root.querySelectorAll(".md-typeset__scrollwrap")) {
      if (box.scrollWidth > box.clientWidth + 1) {
        box.tabIndex = 0;
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", "Table (scrolls sideways)");
      } else if (box.getAttribute("role") === "region") {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    }
  };
  const fixCodeNavs = () => {
    for (const nav of root.querySelectorAll("nav.md-code__nav")) nav.setAttribute("role", "none");
  };
  setTimeout(fixScrollBoxes, 0); // measuring forces a layout: not inside Material's own task
  fixCodeNavs();
  requestAnimationFrame(fixCodeNavs);
  if (!lessonkit.siteResizeWatched) {
    lessonkit.siteResizeWatched = true;
    let timer = 0;
    window.addEventListener("resize", () => {
      clearTimeout(timer);
      timer = setTimeout(fixScrollBoxes, 200);
    });
  }
});
