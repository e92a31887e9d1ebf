/* lessonkit sampling explorer: makes the table built by lessonkit.widgets.sampler.sampler_html
   live. Without this script readers see the page's numbers and no controls (they are `hidden`).
   With it, temperature, top-k and top-p recompute the table by the rules of
   lessonkit.lab.sampling: softmax of logits / T from e^((logit - largest) / T); top-k keeps the
   k likeliest (ties: the earlier word); top-p keeps each word whose likelier words' total is
   below p; the kept ones are rescaled to add up to 1. */
(() => {
  function compute(logits, t, k, p) {
    const top = Math.max(...logits);
    const exps = logits.map((s) => Math.exp((s - top) / t));
    const total = exps.reduce((a, b) => a + b, 0);
    const probs = exps.map((e) => e / total);
    const order = probs.map((_, i) => i).sort((a, b) => probs[b] - probs[a] || a - b);
    const keepK = new Set(order.slice(0, k));
    let kept = probs.map((x, i) => (keepK.has(i) ? x : 0));
    const sumK = kept.reduce((a, b) => a + b, 0);
    kept = kept.map((x) => x / sumK);
    if (p < 1) {
      let before = 0;
      const keepP = new Set();
      for (const i of order) {
        if (kept[i] === 0) continue;
        if (before < p - 1e-12) keepP.add(i);
        before += kept[i];
      }
      kept = kept.map((x, i) => (keepP.has(i) ? x : 0));
      const sumP = kept.reduce((a, b) => a + b, 0);
      kept = kept.map((x) => x / sumP);
    }
    return { probs, kept };
  }

  function setUp(box) {
    const { words, logits } = JSON.parse(box.dataset.lkSampler);
    const controls = box.querySelector(".lk-explorer__controls");
    const inputs = [...controls.querySelectorAll("input")];
    const outs = (name) => [...box.querySelectorAll(`[data-out="${name}"]`)];
    const bar = (span) => span.parentElement.querySelector(".lk-explorer__bar > span");
    const sentence = box.querySelector('[data-out="sentence"]');
    const start = Object.fromEntries(inputs.map((input) => [input.dataset.role, input.value]));

    function read(role) {
      const input = inputs.find((i) => i.dataset.role === role && i.type === "range");
      return Number(input.value);
    }

    function update() {
      const { probs, kept } = compute(logits, read("temperature"), read("k"), read("p"));
      outs("prob").forEach((span, i) => {
        span.textContent = probs[i].toFixed(3);
        bar(span).style.setProperty("--lk-w", probs[i].toFixed(4));
      });
      outs("kept").forEach((span, i) => {
        span.textContent = kept[i].toFixed(3);
        bar(span).style.setProperty("--lk-w", kept[i].toFixed(4));
      });
      const n = kept.filter((x) => x > 0).length;
      const best = words[kept.indexOf(Math.max(...kept))];
      const which = n === 1 ? "1 word is" : `${n} words are`;
      sentence.textContent = `${which} left to draw from; the likeliest is “${best}”.`;
    }

    for (const input of inputs) {
      input.addEventListener("input", () => {
        const value = Number(input.value);
        const min = Number(input.min);
        const max = Number(input.max);
        const valid = input.value !== "" && value >= min && value <= max;
        input.setAttribute("aria-invalid", String(!valid));
        if (!valid) return;
        for (const twin of inputs) {
          if (twin !== input && twin.dataset.role === input.dataset.role) twin.value = input.value;
        }
        update();
      });
    }
    box.querySelector('[data-role="reset"]').addEventListener("click", () => {
      for (const input of inputs) {
        input.value = start[input.dataset.role];
        input.removeAttribute("aria-invalid");
      }
      update();
    });
    controls.hidden = false;
  }

  window.lessonkit.onPage((root) => {
    for (const box of root.querySelectorAll("[data-lk-sampler]")) setUp(box);
  });
})();
