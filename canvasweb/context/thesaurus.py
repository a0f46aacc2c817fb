"""Query expansion by a small bilingual thesaurus: a question in other words still meets the fact.

People ask "what's the weakest graphics card we support?" about "minimum GPU: ..." and "白天用电
高峰的价格" about "峰时电价". Without an embeddings endpoint the rankers are lexical, so a question's
words are widened with the other names of the same thing: each group below lists words and phrases
used for one concept in project chat (English and Chinese). A group applies when all tokens of one
of its phrases are in the question; the tokens of its other phrases join the query at
EXPANSION_WEIGHT (split over a phrase's tokens), so an exact match still ranks first.

Groups are for everyday project vocabulary; a word with several common senses is left out, since a
wrong expansion costs budget on every question that uses it.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from .lexical import CHAR_PREFIX, tokenize

EXPANSION_WEIGHT = 0.5

_GROUPS: tuple[str, ...] = (
    # hardware and computing
    "gpu | graphics card | video card | 显卡",
    "cpu | processor | 处理器",
    "ram | memory | 内存",
    "ssd | hard drive | disk | storage | 硬盘 | 磁盘 | 存储",
    "laptop | notebook computer | computer | pc | 电脑 | 笔记本电脑",
    "monitor | screen | display | 显示器 | 屏幕",
    "phone | mobile | smartphone | cell | 手机 | 电话",
    "scanner | handheld | scan gun | barcode reader | 扫码枪 | 扫描枪 | 手持终端 | 手持机",
    "printer | 打印机",
    "router | wifi | wi-fi | 路由器 | 无线网",
    "battery | 电池",
    "sensor | probe | 传感器 | 探头",
    "gateway | 网关",
    "server | host | hosting | instance | vm | 服务器 | 主机 | 云主机",
    "database | db | 数据库",
    "port | 端口",
    "cache | caching | 缓存",
    "queue | message broker | broker | mq | 消息队列",
    "backup | 备份",
    "log | logs | logging | 日志",
    "monitoring | alert | alerting | alarm | 监控 | 告警 | 报警",
    "bandwidth | network | internet | connectivity | uplink | 网络 | 带宽 | 宽带",
    "region | zone | data centre | data center | 区域 | 地域 | 机房",
    "version | 版本",
    "password | passphrase | credential | 密码 | 口令",
    "authenticate | authentication | login | log in | sign in | 登录 | 认证 | 鉴权",
    "api key | access token | 密钥",
    "dataset | data set | 数据集",
    # web and design
    "font | typeface | 字体",
    "heading | headline | title | 标题",
    "domain | web address | url | 域名 | 网址",
    "logo | 标志 | 徽标",
    "colour | color | palette | 颜色 | 配色 | 色调",
    "photo | picture | image | 照片 | 图片",
    "video | clip | 视频",
    "newsletter | mailing list | 邮件列表 | 订阅",
    "email | e-mail | 邮件 | 邮箱",
    "cookie banner | cookie consent | consent banner | cookie提示",
    "analytics | tracking | 统计 | 埋点",
    "mockup | wireframe | prototype | 原型 | 线框图 | 设计稿",
    "slides | deck | presentation | 幻灯片 | 演示文稿",
    "translation | translate | 翻译",
    # work, people, roles
    "deadline | due date | cutoff | 截止 | 截止日期 | 期限 | 最晚",
    "launch | release | go live | go-live | ship | rollout | 上线 | 发布 | 发版",
    "cutover | switchover | switch over | migration | migrate | 切换 | 割接 | 迁移",
    "downtime | outage | maintenance window | 停机 | 停服 | 宕机",
    "bug | defect | 缺陷 | 故障",
    "test | testing | qa | 测试",
    "meeting | standup | 会议 | 开会 | 例会",
    "review | 评审 | 复盘",
    "postmortem | incident review | retro | retrospective | 复盘",
    "action item | follow-up | todo | 待办 | 行动项",
    "approve | approval | sign off | sign-off | 批准 | 审批 | 拍板",
    "owner | responsible | 负责人 | 负责",
    "manager | boss | supervisor | 经理 | 老板 | 主管 | 领导",
    "client | customer | 客户",
    "vendor | supplier | provider | 供应商 | 厂商 | 厂家",
    "contract | agreement | 合同 | 协议",
    "staff | employee | worker | personnel | 员工 | 人员 | 职工",
    "temp | temporary worker | agency worker | contractor | 临时工 | 外包 | 派遣",
    "hire | hiring | recruit | recruiting | vacancy | opening | 招聘 | 招人 | 岗位 | 职位",
    "let go | lay off | layoff | dismiss | 裁员 | 辞退 | 解雇",
    "shift | crew | rota | roster | 班次 | 排班 | 班组",
    "overnight | night shift | 夜班 | 通宵",
    "headcount | team size | 人数 | 编制 | 人手",
    "salary | wage | pay | compensation | 工资 | 薪资 | 薪水",
    "vacation | holiday | time off | pto | 假期 | 休假 | 请假",
    "onboarding | start date | first day | 入职",
    "team building | offsite | outing | 团建",
    "report | document | 报告 | 文档",
    "proposal | bid | tender | pitch | 提案 | 投标 | 标书",
    "sponsor | sponsorship | 赞助 | 赞助商",
    "judge | panel | reviewer | 评委 | 评审团",
    "prize | award | 奖 | 奖金 | 奖品",
    "license | licence | permit | 许可证 | 执照 | 牌照 | 版号",
    # money
    "cost | price | fee | quote | 费用 | 价格 | 价钱 | 报价 | 收费 | 电价 | 票价",
    "bill | invoice | receipt | 账单 | 发票",
    "budget | spend cap | 预算 | 经费",
    "discount | coupon | promo | 折扣 | 优惠 | 打折",
    "refund | 退款",
    "deposit | down payment | 押金 | 定金 | 订金 | 首付",
    "rent | lease | 租金 | 房租",
    "mortgage | loan | 贷款 | 房贷",
    "tax | vat | 税 | 税率",
    "payment | pay | checkout | 支付 | 付款",
    "insurance | 保险",
    "revenue | sales | turnover | 营收 | 收入 | 销售额",
    # places, travel, logistics
    "venue | location | 场地 | 地点 | 会场",
    "address | street | 地址 | 住址",
    "apartment | flat | 公寓 | 房子",
    "hotel | accommodation | lodging | 酒店 | 宾馆 | 住宿",
    "flight | plane | 航班 | 飞机",
    "train | rail | 火车 | 高铁 | 动车",
    "car | vehicle | 车辆 | 汽车",
    "trip | travel | journey | 出差 | 旅行 | 出行",
    "warehouse | depot | distribution centre | fulfilment centre | 仓库 | 配送中心",
    "aisle | shelf | rack | bay | 货架 | 通道 | 库位",
    "delivery | shipping | shipment | 配送 | 发货 | 物流",
    "purchase | buy | procure | procurement | 购买 | 采购",
    "best-selling | fast-moving | fastest-selling | bestseller | top seller | 畅销 | 爆款",
    "capacity | seats | seating | 容量 | 座位 | 容纳",
    "attendee | guest | participant | visitor | 来宾 | 嘉宾 | 参会者",
    "speaker | keynote | presenter | 演讲嘉宾 | 主讲",
    "catering | food | meal | 餐饮 | 用餐",
    "drinks | beverages | 酒水 | 饮料",
    "gift | souvenir | 礼物 | 礼品 | 纪念品",
    "cake | pastry | dessert | 蛋糕 | 甜点",
    "ticket | 门票 | 票",
    "route | 路线 | 赛道",
    "rehearsal | run-through | 彩排",
    "performance | gig | 演出",
    "hometown | home town | grew up | 老家 | 家乡 | 哪里人",
    "founded | established | 成立 | 创立 | 创办",
    "electricity | power | energy | 电力 | 用电",
    "peak | rush hour | 高峰 | 峰时 | 峰段",
    "off-peak | 低谷 | 谷时 | 谷段",
    "daytime | 白天 | 日间",
    "charger | charging point | charge point | 充电桩",
    "bed | 床位",
    "doctor | clinic | hospital | 医生 | 医院 | 诊所",
    # limits and extremes
    "minimum | min | lowest | weakest | at least | 最低 | 最少 | 至少 | 下限",
    "maximum | max | highest | at most | cap | limit | 最高 | 最多 | 上限",
)


@functools.lru_cache(maxsize=1)
def _phrases() -> tuple[tuple[tuple[str, ...], ...], ...]:
    """Per group, the distinct token tuples of its phrases (tokenized like every text, so stems match)."""
    groups = []
    for line in _GROUPS:
        phrases = []
        for phrase in line.split("|"):
            toks = tuple(dict.fromkeys(t for t in tokenize(phrase.strip()) if not t.startswith(CHAR_PREFIX)))
            if toks and toks not in phrases:
                phrases.append(toks)
        groups.append(tuple(phrases))
    return tuple(groups)


@functools.lru_cache(maxsize=1)
def _groups_by_token() -> dict[str, tuple[int, ...]]:
    out: dict[str, list[int]] = {}
    for gi, phrases in enumerate(_phrases()):
        for toks in phrases:
            for t in toks:
                if gi not in out.setdefault(t, []):
                    out[t].append(gi)
    return {t: tuple(gs) for t, gs in out.items()}


def expansion(terms: Sequence[str]) -> dict[str, float]:
    """Extra query terms and their weights for a question's terms (none already among them)."""
    present = set(terms)
    by_token = _groups_by_token()
    groups = {gi for t in present for gi in by_token.get(t, ())}
    extra: dict[str, float] = {}
    for gi in sorted(groups):
        phrases = _phrases()[gi]
        if not any(all(t in present for t in toks) for toks in phrases):
            continue
        for toks in phrases:
            if all(t in present for t in toks):
                continue
            share = EXPANSION_WEIGHT / len(toks)
            for t in toks:
                if t not in present:
                    extra[t] = max(extra.get(t, 0.0), share)
    return extra
