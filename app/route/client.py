"""How a text names the client whose facts the form holds: its full name without a trailing
bracket, without its company form (上海明川跨境电子商务), and its short name — the trade name with
公司 or 集团 (明川公司), as documents write it after the first mention — and whether a sentence
is about the client (it names it, or 贵公司 / 本公司 / 委托人 …, or it speaks of this transfer:
本次出境, 拟向境外提供 …). Pure functions."""

from __future__ import annotations

import re

from app.validation.route_claims import SUBJECT

COMPANY_SUFFIXES = ("有限责任公司", "股份有限公司", "有限公司")
# a region before the trade name: a province, a city, a district (上海, 深圳市, 浙江省杭州市 …)
REGION = re.compile(
    r"^(?:(?:中国|中华|北京|上海|天津|重庆|河北|山西|辽宁|吉林|黑龙江|江苏|浙江|安徽|福建|江西|山东|河南|湖北|"
    r"湖南|广东|海南|四川|贵州|云南|陕西|甘肃|青海|台湾|内蒙古|广西|西藏|宁夏|新疆|香港|澳门)"
    r"(?:省|市|自治区|特别行政区)?|[\u4e00-\u9fff]{2,3}(?:市|区|县))+"
)
# the industry and the form after the trade name (跨境电子商务有限公司, 网络科技有限公司 …)
INDUSTRY = re.compile(
    r"(?:跨境|电子|商务|电子商务|信息|技术|网络|科技|数据|数字|软件|智能|互联网|通信|贸易|国际|咨询|"
    r"实业|投资|控股|集团|服务|管理|文化|传媒|医疗|健康|医药|生物|金融|保险|物流|供应链|电商|"
    r"零售|餐饮|旅游|教育|汽车|能源|制造|工业|工程|建设|发展|网联|云|计算机|系统|保险|证券|银行)+$"
)
# a sentence that speaks of this transfer, not of someone else's
THIS_TRANSFER = re.compile(
    r"本次(?:数据)?出境|本次(?:向境外)?提供|本次传输|本项目|拟(?:向境外提供|出境)|我司|我方|我单位|本单位"
)


def company_core(name: str) -> str:
    return re.sub(r"[（(][^）)]*[）)]\s*$", "", name).strip()


def trade_name(name: str) -> str:
    """明川 from 上海明川跨境电子商务有限公司 (empty when fewer than two characters remain)."""
    core = re.sub(r"[（(][^）)]*[）)]", "", company_core(name))
    for suffix in (*COMPANY_SUFFIXES, "公司"):
        core = core.removesuffix(suffix)
    core = REGION.sub("", core)
    trade = INDUSTRY.sub("", core)
    return trade if 2 <= len(trade) <= 6 else ""


def client_names(company: str) -> tuple[str, ...]:
    """The client's name as a text may write it: in full without a trailing bracket, without
    its company form when four characters or more remain, and its short name (trade name +
    公司, or + 集团 when the name says 集团)."""
    core = company_core(company)
    if not core:
        return ()
    short = core
    for suffix in COMPANY_SUFFIXES:
        short = short.removesuffix(suffix)
    names = [core] + ([short] if len(short) >= 4 and short != core else [])
    trade = trade_name(company)
    if trade:
        names += [f"{trade}公司"] + ([f"{trade}集团"] if "集团" in core else [])
    return tuple(dict.fromkeys(names))


def about_client(sentence: str, names: tuple[str, ...]) -> bool:
    """Whether the sentence speaks of the client (or of its transfer)."""
    return bool(SUBJECT.search(sentence) or THIS_TRANSFER.search(sentence)) or any(
        n and n in sentence for n in names
    )
