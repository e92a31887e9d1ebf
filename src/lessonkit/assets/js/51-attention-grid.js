/* lessonkit attention grid: makes the heatmap table built by
   lessonkit.widgets.attention_grid.attention_grid_html explorable. Without this script readers see
   the table of weights. With it, each row's word becomes a button described by its row's
   sentence (computed in Python); hovering a row, or focusing or tapping its word, highlights
   the row and the earlier words it can see, and shows the sentence under the table. Escape
   clears the highlight. */
(() => {
  function setUp(grid) {
    const table = grid.querySelector("table");
    const rows = [...table.tBodies[0].rows];
    const heads = [...table.tHead.rows[0].cells].slice(1);
    const line = grid.querySelector('[data-out="focus"]');
    const intro = line.textContent;
    let selected = null;
    let hovered = null;

    function show() {
      const row = hovered ?? selected;
      const i = row ? Number(row.dataset.row) : -1;
      const top = row ? Number(row.dataset.top) : -1;
      for (const r of rows) r.classList.toggle("is-active", r === row);
      heads.forEach((head, j) => {
        head.classList.toggle("is-seen", j <= i);
        head.classList.toggle("is-top", j === top);
      });
      line.textContent = row
        ? document.getElementById(row.cells[0].dataset.note).textContent
        : intro;
    }

    for (const row of rows) {
      const th = row.cells[0];
      const button = document.createElement("button");
      button.type = "button";
      button.className = "lk-attn__word";
      button.setAttribute("aria-describedby", th.dataset.note);
      button.append(...th.childNodes);
      th.append(button);
      const pick = () => {
        selected = row;
        show();
      };
      button.addEventListener("focus", pick);
      button.addEventListener("click", pick); // Safari does not focus a tapped button
      row.addEventListener("pointerenter", () => {
        hovered = row;
        show();
      });
      row.addEventListener("pointerleave", () => {
        hovered = null;
        show();
      });
    }
    grid.addEventListener("focusout", (event) => {
      if (!grid.contains(event.relatedTarget)) {
        selected = null;
        show();
      }
    });
    grid.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && (selected || hovered)) {
        selected = hovered = null;
        show();
      }
    });
    line.hidden = false;
  }

  window.lessonkit.onPage((root) => {
    for (const grid of root.querySelectorAll("[data-lk-attn]")) {
      if (grid.dataset.lkReady) continue;
      grid.dataset.lkReady = "true";
      setUp(grid);
    }
  });
})();
