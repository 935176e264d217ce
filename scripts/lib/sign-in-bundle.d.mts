export declare function signInBundle(): { files: { file: string; gzipBytes: number }[]; gzipBytes: number };
