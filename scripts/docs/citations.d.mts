export declare const ROOT: string;
export declare function citationFiles(): string[];
export declare function outsideCitations(): { file: string; line: number; text: string }[];
export declare function brokenCitations(): { file: string; citation: string; reason: string }[];
