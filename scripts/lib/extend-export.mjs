// The 43 columns of the virtual-card provider's (Extend) transaction export, in its order
// (docs/integrations.md). The sample statement and the import benchmark both write files
// in this layout.
export const EXTEND_EXPORT_HEADER = [
  "Registered Card Last 4", "Funding Source", "Type of Account", "Transaction Date", "Clear Date", "Type", "Status",
  "Name On Card", "Card User Email", "Authorization Merchant Currency", "Authorization Merchant Amount",
  "Authorization Billing Currency", "Authorization Exchange Rate", "Authorization Billing Amount",
  "Settlement Merchant Currency", "Settlement Merchant Amount", "Settlement Billing Currency", "Settlement Billing Amount",
  "Settlement Exchange Rate", "Merchant Name", "Merchant Address", "Merchant City", "Merchant State", "Merchant Country",
  "Merchant ZIP/Postal", "MCC", "MCC Description", "VCN Sender", "VCN Sender Email", "VCN Nickname", "VCN Last 4",
  "Reference Id", "Source", "External", "Number of Attachments", "Attachments", "Transaction Amount", "Notes",
  "Transaction Receipt", "Receipt", "Manager Review", "Final Approval", "Team",
];
