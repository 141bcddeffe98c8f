export async function main(argv: string[]): Promise<number> {
  console.log('args', argv);
  return 0;
}
