/* lessonkit: progressive enhancement. Each feature adds its own file here; the plugin
   concatenates them in name order into one lessonkit.js, loaded once per page.
   lessonkit.onPage(fn) runs fn(root) on every page view, including Material's instant
   navigation (document$), and once on plain page load when Material is absent. */
window.lessonkit = window.lessonkit || {
  onPage(fn) {
    if (window.document$ && typeof window.document$.subscribe === "function") {
      // Each feature in its own task, not inside Material's: shorter tasks, less blocking time.
      window.document$.subscribe(() => setTimeout(() => fn(document), 0));
    } else if (document.readyState === "loading") {
      document.addEventListener("DOMContentLoaded", () => fn(document));
    } else {
      fn(document);
    }
  },
};
