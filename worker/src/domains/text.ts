/** A message as a sentence ending in a full stop, so another can follow it ("… the order. Nothing was bought."). */
export const asSentence = (text: string) => {
  const t = text.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
};
