/* lessonkit softmax explorer: makes the table built by lessonkit.widgets.explorer.explorer_html live.
   Without this script readers see the lesson's numbers and no controls (they are `hidden`).
   With it, every score, value and temperature change recomputes the table with the rules of
   explorer_numbers() in Python: weights from e^((score - largest) / T), so scores of +-1000
   cannot overflow; e^(score / T) printed from its logarithm as m x 10^k when it is too large or
   too small for fixed decimals; numbers rounded like Python's format(x, ".2f"). */
(() => {
  // Python's format(x, ".Nf"). toFixed already rounds the exact binary value, as Python does;
  // they differ only on an exact tie (x * 2^(N+1) an odd integer, e.g. 0.125 to 2 places),
  // which toFixed rounds away from zero and Python rounds half to even.
  function fixed(x, digits) {
    if (Object.is(x, -0)) return `-${(0).toFixed(digits)}`;
    const twice = Math.abs(x) * 2 ** (digits + 1);
    const big = twice * 5 ** digits > Number.MAX_SAFE_INTEGER;
    if (!Number.isInteger(twice) || twice % 2 === 0 || big) {
      return x.toFixed(digits);
    }
    let n = (twice * 5 ** digits - 1) / 2; // |x| lies exactly halfway between n and n + 1
    if (n % 2 === 1) n += 1;
    const text = String(n).padStart(digits + 1, "0");
    const whole = digits ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
    return (x < 0 ? "-" : "") + whole;
  }

  // Python's format(x, "g"): 6 significant digits, trailing zeros dropped.
  function general(x) {
    if (x === 0) return Object.is(x, -0) ? "-0" : "0";
    const [mantissa, exponent] = x.toExponential(5).split("e");
    const exp = Number(exponent);
    const strip = (s) => (s.includes(".") ? s.replace(/\.?0+$/, "") : s);
    if (exp < -4 || exp >= 6) {
      return `${strip(mantissa)}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
    }
    return strip(fixed(x, 5 - exp));
  }

  // e^z from z, its natural logarithm: fixed decimals inside `range`, else m x 10^k.
  function formatExp(z, digits, range) {
    if (z >= range[0] && z <= range[1]) return fixed(Math.exp(z), digits);
    const tens = z * Math.LOG10E;
    let k = Math.floor(tens);
    let mantissa = fixed(10 ** (tens - k), 2);
    if (mantissa === "10.00") [mantissa, k] = ["1.00", k + 1];
    return `${mantissa} × 10^${k}`;
  }

  const names = (xs) => (xs.length === 1 ? xs[0] : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`);

  // The sentences under the table, as explain() in Python: who gets the weight (the scores
  // decide), then who makes up the output (weight × value decides, not the weight alone).
  function explain(scores, weights, products, labels, digits) {
    return `${weightWords(scores, weights, labels, digits)} ${outputWords(weights, products, labels, digits)}`;
  }

  function weightWords(scores, weights, labels, digits) {
    const top = Math.max(...scores);
    const tied = labels.filter((_, i) => scores[i] === top);
    const w = fixed(weights[scores.indexOf(top)], digits);
    if (labels.length === 1) return `Token ${labels[0]} is the only token, so it gets all the weight (${w}).`;
    if (tied.length > 1) {
      const who = tied.length === labels.length ? `All ${labels.length} tokens` : `Tokens ${names(tied)}`;
      return `${who} tie for the highest score, so they get the same weight (${w} each).`;
    }
    if (weights[labels.indexOf(tied[0])] > 0.5) {
      return `Token ${tied[0]} gets most of the weight (${w}): its score is the highest.`;
    }
    return `Token ${tied[0]} gets the largest weight (${w}), but less than half: its score is the highest.`;
  }

  function outputWords(weights, products, labels, digits) {
    const total = sum(products.map(Math.abs));
    const parts = products.map((p) => (total ? Math.abs(p) / total : 0));
    const output = fixed(sum(products), digits);
    if (!parts.some((s) => s)) return `Every weight × value is 0, so the output is ${output}.`;
    const most = Math.max(...parts);
    const lead = labels.filter((_, i) => parts[i] === most);
    const p = fixed(products[labels.indexOf(lead[0])], digits);
    const [who, each] = lead.length === 1 ? [`token ${lead[0]}`, ""] : [`tokens ${names(lead)}`, " each"];
    if (Math.min(...products) < 0 && Math.max(...products) > 0) {
      return `Positive and negative weight × value partly cancel: the largest is ${p}${each}, from ${who}; the output is ${output}.`;
    }
    const amount = most > 0.5 ? "most of the output" : "the largest part of the output";
    const heaviest = Math.max(...weights);
    if (lead.some((x) => weights[labels.indexOf(x)] === heaviest)) {
      return `${amount[0].toUpperCase()}${amount.slice(1)}, ${p}${each} of ${output}, comes from ${who}.`;
    }
    return `But ${amount}, ${p}${each} of ${output}, comes from ${who}: weight × value counts, not weight alone.`;
  }

  const sum = (xs) => xs.reduce((a, b) => a + b, 0);

  // The same steps, in the same order, as explorer_numbers() and attention.softmax().
  function compute({ scores, values, temperature }, labels, digits, range) {
    const top = Math.max(...scores);
    const shifted = scores.map((s) => Math.exp((s - top) / temperature));
    const total = sum(shifted);
    const weights = shifted.map((e) => e / total);
    const z = scores.map((s) => s / temperature);
    const zTop = Math.max(...z);
    const logTotal =
      range[0] <= zTop && zTop <= range[1]
        ? Math.log(sum(z.map((x) => Math.exp(x))))
        : zTop + Math.log(sum(z.map((x) => Math.exp(x - zTop))));
    const products = weights.map((w, i) => w * values[i]);
    return {
      scores: scores.map(general),
      values: values.map(general),
      exponentials: z.map((x) => formatExp(x, digits, range)),
      total: formatExp(logTotal, digits, range),
      weights: weights.map((w) => fixed(w, digits)),
      fractions: weights,
      weightSum: fixed(sum(weights), digits),
      products: products.map((p) => fixed(p, digits)),
      output: fixed(sum(products), digits),
      sentence: explain(scores, weights, products, labels, digits),
      expHead: temperature === 1 ? "e^score" : `e^(score ÷ ${general(temperature)})`,
    };
  }

  function setUp(box) {
    const data = box.dataset;
    const initial = () => ({
      scores: JSON.parse(data.scores),
      values: JSON.parse(data.values),
      temperature: Number(data.temperature),
    });
    const labels = JSON.parse(data.labels);
    const digits = Number(data.decimals);
    const range = JSON.parse(data.expFixed);
    const controls = box.querySelector(".lk-explorer__controls");
    const inputs = [...controls.querySelectorAll("input")];
    const message = box.querySelector('[data-out="message"]');
    const outs = (name) => [...box.querySelectorAll(`[data-out="${name}"]`)];
    const bars = [...box.querySelectorAll(".lk-explorer__bar > span")];
    let state = initial();

    const current = (input) => {
      const { role, index } = input.dataset;
      return role === "temperature" ? state.temperature : state[`${role}s`][Number(index)];
    };
    const partner = (input) =>
      inputs.find(
        (other) =>
          other !== input &&
          other.dataset.role === input.dataset.role &&
          other.dataset.index === input.dataset.index,
      );
    const nameOf = (input) => input.closest(".lk-explorer__control").querySelector("label");

    function render() {
      const r = compute(state, labels, digits, range);
      const put = (name, texts) => outs(name).forEach((el, i) => (el.textContent = texts[i]));
      put("score", r.scores);
      put("value", r.values);
      put("exp", r.exponentials);
      put("weight", r.weights);
      put("product", r.products);
      put("total", [r.total]);
      put("weight-sum", [r.weightSum]);
      put("output", [r.output]);
      put("exp-head", [r.expHead]);
      const [say] = outs("sentence");
      if (say.textContent !== r.sentence) say.textContent = r.sentence; // announce changes only
      bars.forEach((bar, i) => bar.style.setProperty("--lk-w", String(r.fractions[i])));
    }

    function onInput(event) {
      const input = event.target;
      const x = input.valueAsNumber;
      const ok = Number.isFinite(x) && x >= Number(input.min) && x <= Number(input.max);
      if (!ok) {
        input.setAttribute("aria-invalid", "true");
        message.textContent = `${nameOf(input).textContent} must be a number from ${input.min} to ${input.max}.`;
        return;
      }
      input.removeAttribute("aria-invalid");
      message.textContent = "";
      partner(input).value = input.type === "range" ? input.value : String(x);
      const { role, index } = input.dataset;
      if (role === "temperature") state.temperature = x;
      else state[`${role}s`][Number(index)] = x;
      render();
    }

    function fill() {
      for (const input of inputs) {
        input.value = String(current(input));
        input.removeAttribute("aria-invalid");
      }
      message.textContent = "";
    }

    controls.addEventListener("input", onInput);
    // Leaving a field that holds no valid number puts the last valid number back.
    controls.addEventListener("change", (event) => {
      const input = event.target;
      if (input.getAttribute("aria-invalid") === "true") {
        input.value = String(current(input));
        input.removeAttribute("aria-invalid");
        message.textContent = "";
      }
    });
    box.querySelector('[data-role="reset"]').addEventListener("click", () => {
      state = initial();
      fill();
      render();
    });
    controls.hidden = false;
  }

  window.lessonkit.format = { fixed, general, formatExp };
  window.lessonkit.onPage((root) => {
    for (const box of root.querySelectorAll("[data-lk-explorer]")) {
      if (box.dataset.lkReady) continue;
      box.dataset.lkReady = "true";
      setUp(box);
    }
  });
})();
