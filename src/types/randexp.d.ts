declare module 'randexp' {
  export default class RandExp {
    constructor(pattern: RegExp | string, flags?: string);
    max: number;
    randInt: (min: number, max: number) => number;
    gen(): string;
  }
}
