// Click a figure to see it at the size of the window; click again or press Escape to close.
// (Figures drawn for the text column keep their detail at full size.)
document.addEventListener("DOMContentLoaded", () => {
  const close = () => document.querySelectorAll(".calibbook-lightbox").forEach((el) => el.remove());
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") close();
  });
  document.querySelectorAll("article .cell_output img, article figure img").forEach((img) => {
    img.addEventListener("click", () => {
      const box = document.createElement("div");
      box.className = "calibbook-lightbox";
      const big = document.createElement("img");
      big.src = img.src;
      big.alt = img.alt || "";
      box.appendChild(big);
      box.addEventListener("click", close);
      document.body.appendChild(box);
    });
  });
});
