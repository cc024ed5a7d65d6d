// Draw each chart with Vega from the Vega-Lite spec inlined beside its SVG: no fetch,
// so pages opened from the file system draw them too. The SVG stays where script is off
// or Vega fails. Search needs a server (its index is loaded by a worker): opened from
// the file system, it is hidden and a note says so (CSS, class iop-file).
if (location.protocol === "file:") document.documentElement.classList.add("iop-file");
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll(".iop-chart").forEach(async (chart) => {
    const img = chart.querySelector("img");
    const data = chart.querySelector("script.iop-spec");
    if (!img || !data) return;
    const holder = document.createElement("div");
    holder.className = "iop-chart-live";
    holder.setAttribute("role", "img");
    holder.setAttribute("aria-label", img.getAttribute("alt") || "");
    chart.append(holder);
    try {
      await vegaEmbed(holder, JSON.parse(data.textContent), {actions: false, renderer: "svg"});
      (img.closest("p") || img).remove();
      holder.dataset.rendered = "true";
    } catch (error) {
      holder.remove();
      console.warn("iopress: chart kept as SVG", img.getAttribute("src"), error);
    }
  });
});
