export declare const BUILD_INPUTS: readonly string[];
export declare const STAMP_FILE: string;
export declare function inputsHash(root: string): string;
export declare function buildIsCurrent(root: string): boolean;
export declare function writeStamp(root: string, hash?: string): void;
export declare function clearStamp(root: string): void;
