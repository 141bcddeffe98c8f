/**
 * The default analyser's synonym table: general resources only, true of any Chinese shop's customer
 * service, written from general e-commerce knowledge and never from a corpus or its questions. A
 * shop's own vocabulary (brands, products, its policy wording) belongs in a per-domain file passed as
 * `synonyms` (an agent folder's synonyms.txt), which is merged into this one (same format,
 * see synonyms.ts; a group with the same canonical term adds forms).
 *
 * Three kinds of line, kept short so that each can be reviewed:
 * - time units and negation, as any Chinese text writes them (自然日 is a 天, 没有 is 未);
 * - the colloquial verbs of a shopper for the standard terms of a policy (退钱 → 退款, 寄出 → 发货);
 * - the bilingual glossary: the English word a shopper uses for each standard term, so an English
 *   question meets a Chinese help centre without a translation model.
 */
export const GENERAL_GLOSSARY = `
# ─── Time units and negation ───
天 = 日 | 几天 | 多少天 | 自然日 | 个自然日 | !天内 | 日内 | day | days | calendar days
工作日 = 个工作日 | 工作日内 | business day | business days | working day | working days
小时 = 个小时 | 钟头 | hour | hours
周 = 星期 | 个星期 | 礼拜 | week | weeks
周一 = 星期一 | 礼拜一 | monday | mondays
周二 = 星期二 | 礼拜二 | tuesday | tuesdays
周三 = 星期三 | 礼拜三 | wednesday | wednesdays
周四 = 星期四 | 礼拜四 | thursday | thursdays
周五 = 星期五 | 礼拜五 | friday | fridays
周六 = 星期六 | 礼拜六 | saturday | saturdays
周日 = 星期日 | 星期天 | 礼拜天 | 礼拜日 | 周天 | sunday | sundays
周末 = 双休日 | weekend | weekends
月 = 个月 | month | months
年 = year | years | annual | annually | yearly
未 = 没 | 没有 | 还没 | 还没有 | 尚未
不 = not | no | cannot
期限 = 时限 | 截止 | 最晚 | 最迟 | deadline | time limit

# ─── Orders, payment, accounts ───
订单 = 单子 | order | orders
下单 = 购买 | 买了 | 拍下 | purchase | purchased | buy | bought
取消订单 (+订单) = 取消 | 不买了 | 撤单 | cancel | cancellation | cancelled | canceled
付款 = 支付 | 付钱 | pay | payment | paid | checkout
支付宝 = alipay
微信支付 = wechat pay | weixin pay
元 = 块钱 | yuan | rmb | cny
企业 = 公司 | 单位 | company | companies | business
账号 = 账户 | account
登录 = 登陆 | log in | login | sign in
密码 = password
地址 = 收货地址 | address
修改 = 更改 | 改成 | 调整 | 变更 | change | modify | edit | adjust
价格 = 价钱 | 多少钱 | price | cost | how much
注册 = 注册账号 | 新建账号 | 开户 | sign up | register | registration
手机号 = 手机号码 | 电话号码 | !号码 | phone number | mobile number
余额 = 账户余额 | 剩余资金 | 零钱 | balance | account balance
提现 = 取现 | 提款 | 转到银行卡 | withdraw | withdrawal | cash out
重量 = 分量 | 斤两 | weight
预约 = 约定 | appointment | schedule | scheduled
商品 = 东西 | 宝贝 | 产品 | item | items | product | products | goods
分期 = 分期付款 | installment | installments | instalment | instalments
定金 = 订金 | deposit
预售 = presale | pre-sale | preorder | pre-order
邮箱 = 电子邮箱 | 电子邮件 | email | e-mail | mailbox
注销 = 注销账号 | 注销账户 | delete account | close account | account deletion
实名认证 = 实名 | real-name | identity verification
优惠 = 折扣 | 打折 | discount | discounts | promotion | promotions
礼品卡 = gift card | gift cards
营业时间 = 服务时间 | opening hours | business hours | service hours

# ─── Shipping and delivery ───
发货 = 寄出 | 发出 | ship | shipped | dispatch | dispatched
配送 = 送货 | 派送 | 邮寄 | 寄送 | delivery | deliver | delivered | shipping
时效 = 几天到 | 几天能到 | 送达时间 | 到货时间 | delivery time
运费 = 邮费 | 快递费 | 配送费 | 运输费 | 运输费用 | 送货费 | shipping fee | shipping cost | postage | freight
包邮 (+运费) = 免邮 | free shipping
物流 = 快递 | logistics | courier | tracking
签收 = 收到货 | 收货 | receive | received
偏远地区 = 偏远 | remote area | remote areas
自提 = 自取 | 到店自提 | 门店自提 | self-pickup | self pickup | pick up | pickup | collect in store
起送 = 起送价 | 起送金额 | 最低起送 | minimum order | minimum purchase | minimum spend
截单 = 截单时间 | cutoff | cut-off | order cutoff
拒收 = refuse delivery | reject delivery | refuse the delivery
配送范围 = 送货范围 | delivery area | delivery range | service area

# ─── Returns, refunds, exchanges, after-sales ───
退货 = 退 | 退掉 | 退回 | 寄回 | 退了 | return | returns | returned | send back
退款 = 退钱 | 钱退 | 返款 | refund | refunds | refunded | money back
换货 = 换 | 调换 | 更换 | exchange | exchanges | replace | replacement
无理由退货 (+退货) = 无理由 | no reason return | no questions asked
售后 = 售后服务 | after sales | after-sales
到账 = 入账 | credited | arrive in account
差价 = 差额 | price difference | difference
缺货 = 无货 | 断货 | 没货 | out of stock | sold out
替换 = 代替 | 替代 | substitute | substitution | substitutes
少发 = 漏发 | 少件 | missing item | missing items
错发 = 发错 | wrong item | wrong items
保质期 = 保鲜期 | shelf life | best before
以旧换新 = trade in | trade-in
延保 = 延长保修 | extended warranty
质量问题 = 坏了 | 瑕疵 | defect | defective | faulty | broken | quality problem
破损 (+质量问题) = 损坏 | 压坏 | 摔坏 | 碎了 | damaged | damage | crushed
保修 = 维修 | 修 | 质保 | 包修 | warranty | repair | repairs | guarantee
保修期 (+保修) = 质保期 | warranty period
安装 = 上门安装 | install | installation
价格保护 = 价保 | 保价 | 降价补差 | 补差价 | 退差价 | price protection | price drop | price match

# ─── Invoices, coupons, points, service ───
发票 = 开票 | 开发票 | 票据 | 收据 | invoice | invoices | receipt | fapiao
增值税专用发票 (+发票) = 专票 | 专用发票 | vat invoice | vat invoices | vat special invoice | vat special invoices | special invoice | special invoices
电子发票 (+发票) = 电子票 | e-invoice | electronic invoice
发票抬头 (+发票) = 抬头 | invoice title
优惠券 = 券 | 红包 | 代金券 | 折扣券 | coupon | coupons | voucher | vouchers
积分 = points | reward points | loyalty points
会员 = vip | member | membership
会员卡 (+会员) = membership card | member card | loyalty card
投诉 = complain | complaint | complaints
评价 = 评论 | 晒单 | review | reviews | rating
合并 = combine | combined | merge | merged
客服 = 人工客服 | 人工 | customer service | support | agent
过期 = 失效 | 到期 | 有效期 | expire | expires | expired | expiry | valid | validity
`;
