"""The filing package: the official templates of the reports a filing carries (数据出境风险自评估
报告, 个人信息保护影响评估报告（出境版）), the outline sources that write their fixed parts, and the
freshness rule of their assessment period."""
