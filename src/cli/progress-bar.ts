/**
 * A one-line progress bar on a terminal, redrawn in place; silent when the output is not a
 * terminal (CI logs and pipes get the summary only) or when the work is too small to watch.
 */
export class ProgressBar {
  readonly #stream: NodeJS.WriteStream;
  readonly #minimumTotal: number;
  #lastDrawn = 0;
  #active = false;

  constructor(stream: NodeJS.WriteStream = process.stderr, minimumTotal = 200) {
    this.#stream = stream;
    this.#minimumTotal = minimumTotal;
  }

  update(label: string, done: number, total: number): void {
    if (!this.#stream.isTTY || total < this.#minimumTotal) return;
    const now = Date.now();
    if (done < total && now - this.#lastDrawn < 80) return;
    this.#lastDrawn = now;
    const width = 30;
    const filled = Math.round((done / total) * width);
    const percent = Math.floor((done / total) * 100);
    this.#stream.write(
      `\r${label.padEnd(7)} [${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${percent}% ${done}/${total}`,
    );
    this.#active = true;
  }

  finish(): void {
    if (this.#active) this.#stream.write('\n');
    this.#active = false;
  }
}
