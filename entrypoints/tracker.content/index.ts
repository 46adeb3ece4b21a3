export default defineContentScript({ matches: ['*://hdsky.me/*'], main() {} });
