/* lessonkit: progressive enhancement. Each feature adds its own file here; the plugin
   concatenates them in name order into one lessonkit.js, loaded once per page.
   lessonkit.onPage(fn) runs fn(root) on every page view once the page is parsed, wherever the
   host loads this script (in <head>, deferred, or at the end of <body> before markup that
   follows it): on Material's document$ (instant navigation included) when the theme has it,
   else once. */
window.lessonkit = window.lessonkit || {
  onPage(fn) {
    const start = () => {
      if (window.document$ && typeof window.document$.subscribe === "function") {
        // Each feature in its own task, not inside Material's: shorter tasks, less blocking time.
        window.document$.subscribe(() => setTimeout(() => fn(document), 0));
      } else {
        fn(document);
      }
    };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  },
};
